"""planloop.study.runs: the run a record belongs to (model spec, recorded and served
model names, settings), so that no table cell pools two runs."""

import json

import pytest

from planloop.protocols.base import paper_heading
from planloop.protocols.pddlego_plus import PDDLEGO_PLUS
from planloop.study.runs import (
    dropped,
    run_caption,
    run_key,
    single_run,
    split_runs,
)


def record(spec="openai:o3-mini", model="o3-mini", settings=None, request=None, **fields):
    """A record as the harness writes it; ``request=None`` is one written before
    planloop recorded the request."""
    provenance = {"model": model, "model_spec": spec, "settings": settings or {"retries": 5}}
    if request is not None:
        provenance["request"] = request
    return {"provenance": provenance, **fields}


def served(name, dropped=()):
    return {"sent": {}, "dropped": list(dropped), "served_model": name}


def test_a_run_is_the_spec_the_served_model_and_the_settings():
    a = record(request=served("o3-mini-2025-01-31"))
    assert run_key(a) == run_key(record(request=served("o3-mini-2025-01-31", ["temperature"])))
    assert run_key(a) != run_key(record(spec="openai:gpt-4o", model="gpt-4o"))
    assert run_key(a) != run_key(record(request=served("o3-mini-2025-04-16")))
    assert run_key(a) != run_key(record(request=served("o3-mini-2025-01-31"), settings={"x": 1}))
    # settings compare as canonical JSON: the order of their keys does not matter
    assert run_key(record(settings={"a": 1, "b": {"c": 2, "d": 3}})) == run_key(
        record(settings={"b": {"d": 3, "c": 2}, "a": 1})
    )


def test_a_record_written_before_the_request_was_recorded_is_its_recorded_model():
    old = record(spec=None, model="groundtruth")
    assert run_key(old).label == "groundtruth" and run_key(old).served is None
    assert run_key(record()).label == "openai:o3-mini"  # no request field: no served name
    assert run_key({}).label == "no model"


def test_labels_name_the_served_model_and_a_model_the_spec_does_not():
    # a run recorded with the served name is not one recorded without: they differ
    assert run_key(record(request=served("o3-mini"))).label == "openai:o3-mini (served as o3-mini)"
    assert run_key(record(request=served(None))).label == "openai:o3-mini"
    assert (
        run_key(record(request=served("o3-mini-2025-01-31"))).label
        == "openai:o3-mini (served as o3-mini-2025-01-31)"
    )
    assert run_key(record(spec="x", model="scripted")).label == "x (model scripted)"


def test_split_runs_keeps_the_order_runs_are_first_met():
    a, b = record(instance=0), record(spec="groundtruth", model="groundtruth", instance=0)
    records = [a, b, record(instance=1), record(request=served("o3-mini-2025-01-31"))]
    runs = split_runs(records)
    assert [run.label for run in runs] == [
        "openai:o3-mini",
        "groundtruth",
        "openai:o3-mini (served as o3-mini-2025-01-31)",
    ]
    assert list(runs.values())[0] == [a, records[2]]


def test_runs_that_sent_different_requests_are_apart_and_say_what_they_sent():
    paper = {"sent": {"top_p": 1}, "dropped": [], "served_model": None}
    greedy = {"sent": {"temperature": 0.0}, "dropped": [], "served_model": None}
    old, a, b = record(), record(request=paper), record(request=greedy)
    assert len(split_runs([old, a, b])) == 3  # a record from before the request was kept too
    assert run_caption([a]) == "this run: openai:o3-mini; sent: top_p=1"


def test_a_table_of_one_run_refuses_records_of_two():
    one = [record(instance=0), record(instance=1)]
    assert single_run(iter(one)) == one
    with pytest.raises(ValueError, match="records of 2 runs in one table"):
        single_run([*one, record(spec="groundtruth", model="groundtruth")])


def test_the_caption_names_the_model_the_overrides_and_what_the_model_dropped():
    settings = {"protocol": "pddlego-plus", "overrides": {"retries": 3, "max_steps": 4}}
    records = [
        record(settings=settings, request=served("o3-mini-2025-01-31", ["temperature"])),
        record(settings=settings, request=served("o3-mini-2025-01-31", ["top_p", "temperature"])),
    ]
    assert dropped(records) == ["temperature", "top_p"]
    assert run_caption(records, "o3-mini") == (
        "this run: openai:o3-mini (served as o3-mini-2025-01-31); paper: o3-mini; "
        "overridden: retries=3, max_steps=4; sent: no parameter (the provider defaults); "
        "dropped by the model: temperature, top_p"
    )
    assert run_caption([record()]) == "this run: openai:o3-mini"
    assert paper_heading(PDDLEGO_PLUS.tables[0], [record()]) == (
        "### Success\n\nthis run: openai:o3-mini; paper: o3-mini"
    )


STUDIES = {  # a quick run of each study whose own tables hold one invocation's records
    "mystery": (["--conditions", "direct-zero-shot", "--instances", "0:2"], "results.md"),
    "agentic": (
        ["--conditions", "direct", "--instances", "0:2", "--max-attempts", "1"],
        "results.md",
    ),
    "formalize": (["--domains", "gripper", "--sizes", "10", "--per-cell", "2"], "results.md"),
    "horizon_sweep": (
        ["--env", "Baking-v0", "--instances", "0:1", "--horizons", "1", "--trials", "2"],
        "success.md",
    ),
}


@pytest.mark.parametrize("name", list(STUDIES))
def test_a_study_shows_each_run_apart_in_its_own_tables(tmp_path, name, capsys):
    """Two of a study's records served under different names (one recorded before the
    served name was): a rerun replays nothing and shows two runs, each once."""
    from planloop.llm import ScriptedModel

    from conftest import load_experiment

    study = load_experiment(name)
    flags, results = STUDIES[name]
    args = [*flags, "--llm", "model-a", "--out", str(tmp_path)]
    model = ScriptedModel(lambda messages: "No.", name="model-a")
    assert study.main(args, model=model) == 0
    path = tmp_path / "episodes.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    records[-1]["provenance"]["request"] = served("model-a-2025")
    for record in records[:-1]:
        record["provenance"].pop("request", None)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    capsys.readouterr()

    calls = model.calls
    assert study.main(args, model=model) == 0
    assert model.calls == calls and len(path.read_text().splitlines()) == len(records)
    text, printed = (tmp_path / results).read_text(), capsys.readouterr().out
    for shown in (text, printed):
        assert shown.count("this run: model-a\n") == 1, shown
        assert shown.count("this run: model-a (served as model-a-2025); sent: ") == 1, shown


def sent(*sets, unlisted=0, name="gpt-4o-mini"):
    """A request as the harness records it now: the episode's requests' sets."""
    return {
        "sent_sets": list(sets),
        "unlisted_requests": unlisted,
        "dropped": [],
        "served_model": name,
    }


def test_a_run_pools_episodes_whatever_their_requests_carried():
    """A seed per trial, and a condition that calls no model, are one run."""
    records = [
        record(request=sent({"temperature": 0.7, "seed": trial}), trial=trial) for trial in range(5)
    ]
    records.append(record(request=sent(), condition="planner"))
    assert len(split_runs(records)) == 1
    assert run_caption(records) == (
        "this run: openai:o3-mini (served as gpt-4o-mini); sent: temperature=0.7, seed=0..4"
    )
    older = record(request={"sent": {"temperature": 0.0}, "dropped": [], "served_model": None})
    assert len(split_runs([*records, older])) == 2  # it said less: apart


@pytest.mark.parametrize(
    "sets, shown",
    [
        ([{"seed": 0}, {"seed": 2}, {"seed": 3}, {"seed": 9}], "seed=0/2..3/9"),
        ([{"reasoning_effort": "high"}, {"reasoning_effort": "low"}], "reasoning_effort=high/low"),
        (
            [{"temperature": 0.7, "seed": 1}, {"temperature": 0.0}],
            "temperature=0.7/0.0, seed=1 (some requests)",
        ),
        ([{}], "no parameter (the provider defaults)"),
        ([], "no request"),
    ],
)
def test_the_caption_says_each_parameter_the_requests_carried_with_its_values(sets, shown):
    assert run_caption([record(request=sent(*sets))]).endswith(f"; sent: {shown}")


def test_the_caption_says_how_many_requests_carried_sets_not_kept():
    caption = run_caption([record(request=sent({"seed": 0}, unlisted=4))])
    assert caption.endswith("sent: seed=0 (and 4 requests of other sets, not kept)")
