"""What each study sends a real endpoint: OpenAI's reasoning models, a gateway that
refuses a parameter and a model the user set a parameter for, against the local server
answering as they answer (planloop.llm.fake_server.openai_rules / refusing); and that
what a study's records and captions say its requests sent is what the server logged:
each episode's own requests (a policy's temperature and seed included, the model
check's call not), in every study that calls a model."""

import json

import pytest

pytest.importorskip("openai")

from planloop.llm.fake_server import FakeChatServer, openai_rules, refusing  # noqa: E402
from planloop.protocols.agentic import AGENTIC  # noqa: E402
from planloop.protocols.baking import BAKING  # noqa: E402
from planloop.protocols.mystery import MYSTERY  # noqa: E402
from planloop.protocols.nl_pddl import NL_PDDL  # noqa: E402
from planloop.protocols.pddlego_plus import PDDLEGO_PLUS  # noqa: E402
from planloop.study.models import CHECK_MESSAGES  # noqa: E402
from planloop.study.runs import run_caption, sent_summary  # noqa: E402

from conftest import load_experiment  # noqa: E402

DF = """(define (domain coin) (:requirements :strips :typing) (:types location direction)
(:predicates (at ?l - location) (connected ?a - location ?b - location ?d - direction))
(:action move :parameters (?from - location ?to - location ?d - direction)
 :precondition (and (at ?from) (connected ?from ?to ?d))
 :effect (and (not (at ?from)) (at ?to))))"""
PF = """(define (problem p) (:domain coin) (:objects kitchen r1 - location north - direction)
(:init (at kitchen) (connected kitchen r1 north)) (:goal (at r1)))"""
FILES = json.dumps({"df": DF, "pf": PF})


def records(out):
    return [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]


def chat_requests(server):
    """The requests the study made (the model check's and the episodes')."""
    return [r for r in server.requests if isinstance(r, dict)]


def pddlego(server, name, out, *flags):
    argv = ["-o", "num_locations=3", "--instances", "0:1", "--llm", f"{server.url}@{name}"]
    return load_experiment("pddlego").main([*argv, "--out", str(out), *flags])


@pytest.mark.parametrize("no_sampling", [False, True])
def test_pddlego_paper_with_o3_mini_completes_with_no_model_error(tmp_path, no_sampling):
    with FakeChatServer([("ok", FILES)] * 40, openai_rules(no_sampling)) as server:
        assert pddlego(server, "o3-mini", tmp_path, "--paper") == 0
    [record] = records(tmp_path)
    assert record["error"] is None and record["usage"]["calls"] == 5
    sent = chat_requests(server)
    assert all("temperature" not in r for r in sent)
    penalties = {"frequency_penalty": 0, "presence_penalty": 0}
    if no_sampling:  # as o1 answers: top_p 1 refused once at the check, then not sent
        assert len(sent) == 7 and "top_p" in sent[0]
        assert all("top_p" not in r for r in sent[1:])
        expected = {"sent_sets": [penalties], "dropped": ["top_p"], "served_model": "o3-mini"}
    else:  # the model check and 5 tries, none refused; top_p 1 as the authors sent it
        assert len(sent) == 6 and all(r["top_p"] == 1 for r in sent)
        expected = {
            "sent_sets": [{"top_p": 1, **penalties}],
            "dropped": [],
            "served_model": "o3-mini",
        }
    assert record["provenance"]["request"] == {**expected, "unlisted_requests": 0}


def test_pddlego_paper_sends_gpt_4o_top_p_1_and_no_temperature(tmp_path):
    with FakeChatServer([("ok", FILES)] * 40, openai_rules()) as server:
        assert pddlego(server, "gpt-4o-2024-05-13", tmp_path, "--paper") == 0
    for request in chat_requests(server):
        assert "temperature" not in request
        assert (request["top_p"], request["frequency_penalty"], request["presence_penalty"]) == (
            1,
            0,
            0,
        )


def test_pddlego_paper_sends_o4_mini_high_reasoning_effort_and_nothing_else(tmp_path):
    with FakeChatServer([("ok", FILES)] * 40, openai_rules()) as server:
        assert pddlego(server, "o4-mini-2025-04-16", tmp_path, "--paper") == 0
    for request in chat_requests(server):
        assert set(request) == {"model", "messages", "reasoning_effort"}
        assert request["reasoning_effort"] == "high"


def test_a_gateway_refusing_top_p_is_sent_the_rest_and_the_drop_is_recorded(tmp_path):
    with FakeChatServer([("ok", FILES)] * 40, refusing("top_p")) as server:
        assert pddlego(server, "gpt-4o", tmp_path, "--paper") == 0
    sent = chat_requests(server)
    assert "top_p" in sent[0] and all("top_p" not in r for r in sent[1:])
    [record] = records(tmp_path)
    assert record["error"] is None
    assert record["provenance"]["request"]["dropped"] == ["top_p"]


def test_a_parameter_the_user_set_that_the_model_refuses_stops_before_any_episode(tmp_path, capsys):
    with FakeChatServer([("ok", FILES)] * 5, openai_rules()) as server:
        code = pddlego(server, "o3-mini", tmp_path, "--paper", "--temperature", "0.3")
    assert code == 2 and len(chat_requests(server)) == 1
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "o3-mini" in line and "temperature=0.3" in line and "set for this run" in line
    assert not (tmp_path / "episodes.jsonl").exists() or not records(tmp_path)


def test_flags_set_outside_paper_enter_the_settings_and_are_always_sent(tmp_path):
    with FakeChatServer([("ok", FILES)] * 400) as server:
        argv = ["--seed", "7", "--top-p", "0.5", "--max-tokens", "900"]
        assert pddlego(server, "local-model", tmp_path, *argv) == 0
    [record] = records(tmp_path)
    assert record["provenance"]["settings"]["request"] == {
        "seed": 7,
        "top_p": 0.5,
        "max_tokens": 900,
    }
    for request in chat_requests(server):
        assert (request["seed"], request["top_p"], request["max_tokens"]) == (7, 0.5, 900)
        assert request["temperature"] == 0.0  # planloop's default, which this model takes


def test_mystery_direct_zero_shot_with_o4_mini_completes_with_no_model_error(tmp_path):
    plan = "(attack a)\n(succumb a)"
    with FakeChatServer([("ok", plan)] * 30, openai_rules()) as server:
        argv = ["--conditions", "direct-zero-shot", "--instances", "0:2"]
        argv += ["--llm", f"{server.url}@o4-mini", "--out", str(tmp_path)]
        assert load_experiment("mystery").main(argv) == 0
    assert [r["error"] for r in records(tmp_path)] == [None, None]
    sent = chat_requests(server)
    assert len(sent) > 2 and all("temperature" not in r for r in sent)


@pytest.mark.parametrize(
    "protocol, model, expected",
    [
        (PDDLEGO_PLUS, "o4-mini-2025-04-16", {"reasoning_effort": "high"}),
        (PDDLEGO_PLUS, "o4-mini", {"reasoning_effort": "high"}),
        (
            PDDLEGO_PLUS,
            "o3-mini-2025-01-31",
            {"top_p": 1, "frequency_penalty": 0, "presence_penalty": 0},
        ),
        (PDDLEGO_PLUS, "gpt-4.1", {"top_p": 1, "frequency_penalty": 0, "presence_penalty": 0}),
        (MYSTERY, "gpt-4", {"temperature": 0.2}),
        (AGENTIC, "claude-haiku-4-5", {"temperature": 0.2}),
        (BAKING, "gpt-4o", {"temperature": None}),
        (NL_PDDL, "llama3.1-8b", None),
    ],
)
def test_each_protocol_states_what_its_authors_sent_each_model_family(protocol, model, expected):
    assert protocol.request_for(model) == expected


PAPER_RUNS = {
    "pddlego": ["-o", "num_locations=3", "--instances", "0:1"],
    "mystery": ["--conditions", "direct-zero-shot", "--instances", "0:1"],
    "agentic": ["--conditions", "direct", "--instances", "0:1", "--max-attempts", "3"],
    "horizon_sweep": ["--instances", "0:1", "--trials", "1", "--horizons", "1"],
    "formalize": ["--domains", "blocksworld", "--sizes", "10", "--per-cell", "1"],
}
SENT = {  # the temperature each protocol sends gpt-4o (None: not sent)
    "pddlego": None,
    "mystery": 0.2,
    "agentic": 0.2,
    "horizon_sweep": None,
    "formalize": 0.0,
}


@pytest.mark.parametrize("model", ["gpt-4o", "o3-mini"])
@pytest.mark.parametrize("study", list(PAPER_RUNS))
def test_each_paper_sends_each_model_family_what_its_protocol_states(tmp_path, study, model):
    reply = FILES if study == "pddlego" else "(attack a)"
    with FakeChatServer([("ok", reply)] * 400, openai_rules()) as server:
        argv = [*PAPER_RUNS[study], "--paper", "--llm", f"{server.url}@{model}"]
        assert load_experiment(study).main([*argv, "--out", str(tmp_path)]) == 0
    sent = chat_requests(server)
    assert sent and all(r["model"] == model for r in sent)
    expected = SENT[study] if model == "gpt-4o" else None  # o3-mini: no temperature
    assert {r.get("temperature") for r in sent} == {expected}
    assert all(r.get("error") is None for r in records(tmp_path))
    if study == "pddlego":
        assert all((r["top_p"], r["presence_penalty"]) == (1, 0) for r in sent)


def test_a_given_model_is_checked_once_the_user_set_a_parameter_it_may_refuse(tmp_path, capsys):
    from planloop.llm import OpenAIChat

    with FakeChatServer([("ok", FILES)] * 5, openai_rules()) as server:
        given = OpenAIChat("o3-mini", base_url=server.url)  # as reproduce.py hands it over
        argv = ["-o", "num_locations=3", "--instances", "0:1", "--llm", "x", "--paper"]
        argv += ["--temperature", "0.3", "--out", str(tmp_path)]
        assert load_experiment("pddlego").main(argv, model=given) == 2
    assert len(chat_requests(server)) == 1
    assert "temperature=0.3" in capsys.readouterr().err


REPORTS = {
    "pddlego": "results.md",
    "mystery": "results.md",
    "agentic": "results.md",
    "horizon_sweep": "success.md",
    "formalize": "results.md",
}


def params_of(body: dict) -> dict:
    """A logged request body's parameters (the rest is the model, messages and tools)."""
    return {k: v for k, v in body.items() if k not in ("model", "messages", "tools")}


def distinct(sets) -> list[dict]:
    out: list[dict] = []
    for params in sets:
        if params not in out:
            out.append(params)
    return out


def logged(server) -> tuple[list[dict], list[dict]]:
    """(the model check's parameters, the distinct parameter sets of the episodes'
    requests), as the server logged them."""
    bodies = [r for r in server.requests if isinstance(r, dict)]
    check = [params_of(r) for r in bodies if r["messages"] == CHECK_MESSAGES]
    return check, distinct(params_of(r) for r in bodies if r["messages"] != CHECK_MESSAGES)


def run(study, tmp_path, model, *flags, reply="(attack a)"):
    """The study's records and report after a run against a fresh server (and cache)."""
    out = tmp_path / "out"
    with (
        pytest.MonkeyPatch.context() as patch,
        FakeChatServer([("ok", reply)] * 400, openai_rules()) as server,
    ):
        patch.setenv("HOME", str(tmp_path))  # the model cache lives under ~
        argv = [*flags, "--llm", f"{server.url}@{model}", "--out", str(out)]
        assert load_experiment(study).main(argv, show=False) == 0
    records = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    return server, records, (out / REPORTS[study]).read_text()


HORIZONS = ["--env", "Baking-v0", "--instances", "0:2", "--horizons", "1,2", "--trials", "3"]


def test_the_horizon_sweep_records_the_temperature_and_seeds_its_episodes_sent(tmp_path):
    server, records, report = run(
        "horizon_sweep", tmp_path, "gpt-4o-mini", *HORIZONS, "--workers", "3"
    )
    check, episodes = logged(server)
    assert check == [{"temperature": 0.0}]  # the check's call is no episode's
    assert sorted(episodes, key=lambda p: p["seed"]) == [
        {"temperature": 0.7, "seed": t} for t in range(3)
    ]
    assert len(records) == 12
    for record in records:  # each episode its own requests, though 3 threads shared the model
        request = record["provenance"]["request"]
        assert request["sent_sets"] == [{"temperature": 0.7, "seed": record["trial"]}]
        assert request["unlisted_requests"] == 0
    assert "sent: temperature=0.7, seed=0..2\n" in report
    assert "temperature=0.0" not in report


def test_a_reasoning_model_with_a_seed_records_no_temperature_and_the_seeds_sent(tmp_path):
    flags = [*HORIZONS[:-1], "1", "--seed", "11"]
    server, records, report = run("horizon_sweep", tmp_path, "gpt-5", *flags)
    check, episodes = logged(server)
    assert check == [{"seed": 11}]  # --seed; the policy's own seed (the trial) wins
    assert episodes == [{"seed": 0}]
    assert [r["provenance"]["request"]["sent_sets"] for r in records] == [episodes] * 4
    assert "sent: seed=0\n" in report


def test_mystery_with_gpt_5_says_the_seeds_every_request_carried(tmp_path):
    server, [record], report = run("mystery", tmp_path, "gpt-5", *PAPER_RUNS["mystery"])
    _, episodes = logged(server)
    assert episodes and all("seed" in params for params in episodes)
    assert record["provenance"]["request"]["sent_sets"] == episodes
    assert "no parameter (the provider defaults)" not in report
    assert f"sent: {sent_summary([record])}" in report and "sent: seed=" in report


@pytest.mark.parametrize("model", ["gpt-4o-mini", "gpt-5"])
@pytest.mark.parametrize("study", list(PAPER_RUNS))
def test_every_study_records_and_captions_what_the_server_logged(tmp_path, study, model):
    reply = FILES if study == "pddlego" else "(attack a)"
    flags = [*PAPER_RUNS[study], "--seed", "11"]
    server, [record], report = run(study, tmp_path, model, *flags, reply=reply)
    _, episodes = logged(server)
    assert episodes
    assert record["provenance"]["request"]["sent_sets"] == episodes
    caption = f"sent: {sent_summary([{'provenance': {'request': {'sent_sets': episodes}}}])}"
    assert caption in run_caption([record])
    if study != "pddlego":  # its results.md names the run in a column, not a caption
        assert caption in report
