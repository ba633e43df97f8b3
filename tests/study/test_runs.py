"""planloop.study.runs: the run a record belongs to (model spec, recorded and served
model names, settings), so that no table cell pools two runs."""

import pytest

from planloop.protocols import PDDLEGO_PLUS
from planloop.study.runs import (
    dropped,
    paper_heading,
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
        "overridden: retries=3, max_steps=4; dropped by the model: temperature, top_p"
    )
    assert run_caption([record()]) == "this run: openai:o3-mini"
    assert paper_heading(PDDLEGO_PLUS.tables[0], [record()]) == (
        "### Success\n\nthis run: openai:o3-mini; paper: o3-mini"
    )
