"""experiments/pddlego.py: the ground-truth run with its table and plot, resume, and a
misbehaving model server seen through the real openai client."""

import importlib.util
import json

import pytest

from planloop.protocols.pddlego_plus.tables import results_table

from conftest import load_experiment


def read(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_groundtruth_run_table_plot_and_resume(tmp_path, capsys):
    study = load_experiment("pddlego")
    args = [
        "--llm",
        "groundtruth",
        "-o",
        "num_locations=5",
        "--instances",
        "0:3",
        "--planner",
        "auto",
        "--out",
        str(tmp_path),
    ]
    assert study.main(args) == 0
    out = capsys.readouterr().out
    assert "| CoinCollector-v0 | num_locations=5 | groundtruth | pddlego, detailed prompt" in out
    assert "3/3 [44%, 100%]" in out
    results = (tmp_path / "results.md").read_text()
    table = results.split("\n\n", 1)[1].split("\n\n### The formalizations")[0]
    assert out.count(table) == 1  # the run's table, once; the judgement stays in the file
    assert "hidden world" in results and "hidden world" not in out
    assert f"report: {tmp_path / 'report.html'}" in out
    records = read(tmp_path / "episodes.jsonl")
    assert len(records) == 3 and all(r["won"] and r["model"] == "groundtruth" for r in records)
    assert all(r["details"]["rounds"][0]["trigger"] == "start" for r in records)
    if importlib.util.find_spec("matplotlib"):
        assert (tmp_path / "success.png").read_bytes()[:4] == b"\x89PNG"

    assert study.main(args) == 0  # a rerun plays nothing and writes the same table
    assert len(read(tmp_path / "episodes.jsonl")) == 3
    assert "3/3 [44%, 100%]" in capsys.readouterr().out


def test_flags_are_checked(capsys):
    study = load_experiment("pddlego")
    assert study.main(["--env", "Blocksworld-v0", "--llm", "groundtruth"]) == 2
    assert "no PDDLego+ prompts for Blocksworld-v0" in capsys.readouterr().err
    assert study.main(["--llm", "groundtruth", "--policy", "plangen"]) == 2
    assert "cannot play --policy plangen" in capsys.readouterr().err


@pytest.mark.slow
def test_a_server_answering_nonsense_between_429s_and_500s(tmp_path, monkeypatch, capsys):
    """Every episode ends on its loop budget, is recorded once with why it stopped, and
    a rerun makes no model call."""
    pytest.importorskip("openai")
    from planloop.llm.fake_server import FakeChatServer

    monkeypatch.setenv("HOME", str(tmp_path))  # the model cache lives under ~
    study = load_experiment("pddlego")
    cycle = [
        ("status", 429, {"Retry-After": "0"}),
        ("status", 500),
        ("ok", "Sure! I would first go north, then look for the coin."),
    ]
    args = [
        "-o",
        "num_locations=3",
        "--instances",
        "0:2",
        "--retries",
        "1",
        "--out",
        str(tmp_path / "out"),
    ]
    with FakeChatServer([("ok", "OK")] + cycle * 8) as server:
        assert study.main(args + ["--llm", f"{server.url}@nonsense"]) == 0
    records = read(tmp_path / "out" / "episodes.jsonl")
    assert len(records) == 2
    for record in records:
        assert not record["won"] and record["error"] is None and record["gave_up"]
        assert record["stop"].startswith(
            "solver error not fixed after 1 retries: syntax: "
            "the reply holds no domain file and no problem file"
        )
        assert record["usage"]["calls"] == 2
        assert record["details"]["tries"] == [[[1, 1]]]  # one step, one try, its 1 retry
        assert (record["solver_errors"], record["solver_fixed"]) == (1, 0)
    assert "0/2 [0%, 66%]" in capsys.readouterr().out

    with FakeChatServer([]) as server:
        assert study.main(args + ["--llm", f"{server.url}@nonsense"]) == 0
        assert server.requests == []
    assert len(read(tmp_path / "out" / "episodes.jsonl")) == 2


def test_domain_reuse_freezes_the_domain_of_a_won_episode(tmp_path, capsys):
    from planloop.llm import ScriptedModel

    study = load_experiment("pddlego")
    base = [
        "-o",
        "num_locations=3",
        "--instances",
        "0:1",
        "--planner",
        "auto",
        "--out",
        str(tmp_path),
    ]
    assert study.main(base + ["--llm", "x", "--domain-reuse"], model=ScriptedModel([])) == 2
    assert "--domain-reuse found no won PDDLego+ episode" in capsys.readouterr().err
    assert study.main(base + ["--llm", "groundtruth"]) == 0
    won = read(tmp_path / "episodes.jsonl")[0]
    domain = won["details"]["rounds"][-1]["df"]

    model = ScriptedModel(
        lambda messages: (
            '{"pf": "(define (problem p) (:domain coin-collector)'
            ' (:objects k - room) (:init) (:goal (and)))"}'
        )
    )
    assert study.main(base + ["--llm", "x", "--domain-reuse", "--retries", "0"], model=model) == 0
    reused = read(tmp_path / "episodes.jsonl")[-1]
    assert reused["domain"].startswith("reused:") and reused["model"] == "scripted"
    prompt = model.prompts[0][-1]["content"]
    assert f"The domain file (fixed):\n{domain}" in prompt and '{"pf": ' in prompt
    assert reused["details"]["rounds"][0]["df"] == domain  # only the PF was the model's
    assert reused["stop"].startswith(
        "solver error not fixed after 0 retries: goal: the goal is empty"
    )
    assert "pddlego, detailed prompt, reused domain" in capsys.readouterr().out


def test_detailed_feedback_reaches_the_environment(tmp_path, capsys):
    study = load_experiment("pddlego")
    assert (
        study.main(
            [
                "--llm",
                "groundtruth",
                "-o",
                "num_locations=3",
                "--instances",
                "0:2",
                "--planner",
                "auto",
                "--feedback",
                "detailed",
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    records = read(tmp_path / "episodes.jsonl")
    assert all(
        r["provenance"]["env_kwargs"] == {"num_locations": 3, "feedback": "detailed"}
        for r in records
    )
    assert "feedback=detailed" in capsys.readouterr().out


def test_a_failed_model_call_is_named_under_the_table(tmp_path, capsys):
    from planloop.llm import LLMError, ScriptedModel

    study = load_experiment("pddlego")
    model = ScriptedModel(lambda messages: LLMError("server", "503 after retries"))
    assert (
        study.main(
            ["-o", "num_locations=3", "--instances", "0:2", "--llm", "x", "--out", str(tmp_path)],
            model=model,
        )
        == 0
    )
    out = capsys.readouterr().out
    assert (
        "2 episodes ended on a failed model call: each counts as a failure in n and in "
        "the model errors column; rerun to retry them. The last: server: 503 after "
        "retries" in out
    )
    row = next(line for line in out.splitlines() if line.startswith("| CoinCollector-v0"))
    assert "| 0/2 [0%, 66%] |" in row and row.endswith("| 2 |")  # n = scheduled, 2 errors
    assert read(tmp_path / "episodes.jsonl")[0]["error"] == "server: 503 after retries"


def test_a_given_domain_is_checked_before_any_episode(tmp_path, capsys):
    from planloop.llm import ScriptedModel

    study = load_experiment("pddlego")
    broken = tmp_path / "domain.pddl"
    broken.write_text("(define (domain")
    args = ["--instances", "0:1", "--domain-file", str(broken), "--out", str(tmp_path)]
    assert study.main(args + ["--llm", "x"], model=ScriptedModel([])) == 2
    assert (
        "is not a PDDL domain: domain error: line 1, col 9: unbalanced parentheses"
        in capsys.readouterr().err
    )
    assert study.main(args + ["--llm", "groundtruth"]) == 2
    assert "--llm groundtruth writes the true domain" in capsys.readouterr().err
    assert not (tmp_path / "episodes.jsonl").exists()


def row_of(table, model):
    """The cells of the table's one row whose model cell is ``model``."""
    [line] = [line for line in table.splitlines() if f" | {model} | " in line]
    return line.split(" | ")


def test_two_models_and_records_from_before_the_request_was_recorded(tmp_path, capsys):
    """Two models in one --out are rows of their own; records without
    ``provenance.request`` (written before planloop recorded it) resume without
    replaying an episode and show under their recorded model."""
    from planloop.llm import ScriptedModel

    study = load_experiment("pddlego")
    coin = ["-o", "num_locations=3", "--retries", "0", "--out", str(tmp_path)]
    truth = ["--llm", "groundtruth", "--instances", "0:2", *coin]
    other = ["--llm", "model-b", "--instances", "0:1", *coin]
    assert study.main(truth) == 0
    assert study.main(other, model=ScriptedModel(lambda messages: "No.", name="model-b")) == 0
    lines = (tmp_path / "episodes.jsonl").read_text().splitlines()
    old = [json.loads(line) for line in lines]
    for record in old:
        record["provenance"].pop("request", None)
    (tmp_path / "episodes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in old))
    capsys.readouterr()

    model = ScriptedModel(lambda messages: "No.", name="model-b")
    assert study.main(truth) == 0 and study.main(other, model=model) == 0
    assert model.calls == 0 and len(read(tmp_path / "episodes.jsonl")) == len(lines) == 3
    printed = capsys.readouterr().out  # each run prints its own row only
    assert printed.count("| groundtruth |") == 1 and printed.count("| model-b |") == 1
    table = (tmp_path / "results.md").read_text().split("\n\n### The formalizations")[0]
    assert row_of(table, "groundtruth")[5] == "2/2 [34%, 100%]"
    assert row_of(table, "model-b")[5] == "0/1 [0%, 79%]"


def test_a_served_model_name_is_a_row_of_its_own():
    record = {
        "policy": "pddlego",
        "prompt": "detailed",
        "error_fixing": True,
        "won": True,
        "rounds": 1,
        "steps": 2,
        "provenance": {"env": "CoinCollector-v0", "model": "gpt-4o", "model_spec": "openai:gpt-4o"},
    }
    served = {
        **record,
        "won": False,
        "provenance": {
            **record["provenance"],
            "request": {"sent": {}, "dropped": ["top_p"], "served_model": "gpt-4o-2024-08-06"},
        },
    }
    table = results_table([record, served, record])
    assert row_of(table, "openai:gpt-4o")[5] == "2/2 [34%, 100%]"
    served_row = "openai:gpt-4o (served as gpt-4o-2024-08-06); dropped by the model: top_p"
    assert row_of(table, served_row)[5] == "0/1 [0%, 79%]"
