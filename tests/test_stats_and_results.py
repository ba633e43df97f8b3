"""Wilson intervals and resumable JSON-lines results."""

import json
import os

import pytest

from planloop.results import ResultsError, ResultsFile, config_hash
from planloop.stats import wilson_interval

from conftest import load_experiment


def test_wilson_interval_known_values():
    low, high = wilson_interval(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(0.9433, abs=1e-4)
    assert wilson_interval(0, 20)[0] == 0.0 and wilson_interval(20, 20)[1] == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


def test_config_hash_is_stable_and_order_free():
    assert config_hash({"a": 1, "b": [2]}) == config_hash({"b": [2], "a": 1})
    assert config_hash({"a": 1}) != config_hash({"a": 2})


def test_results_resume_and_survive_a_torn_line(tmp_path):
    path = tmp_path / "r.jsonl"
    results = ResultsFile(path)
    results.append({"key": "x/0", "won": True})
    with path.open("a") as out:
        out.write('{"key": "x/1", "wo')  # the run was killed mid-write
    resumed = ResultsFile(path)
    assert resumed.done == {"x/0"}
    # the fragment is moved aside: every line left is a record, for any reader
    assert resumed.torn_path.read_text() == '{"key": "x/1", "wo\n'
    assert [json.loads(line)["key"] for line in path.read_text().splitlines()] == ["x/0"]
    resumed.append({"key": "x/1", "won": False})
    assert [json.loads(line)["key"] for line in path.read_text().splitlines()] == ["x/0", "x/1"]
    assert ResultsFile(path).done == {"x/0", "x/1"}


def test_results_file_keeps_only_records(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"key": "a"}\n[1, 2]\n\xff\xfe\n\n{"key": "b"}')  # no final newline
    results = ResultsFile(path)
    assert results.done == {"a", "b"}
    assert path.read_bytes() == b'{"key": "a"}\n{"key": "b"}\n'
    assert results.torn_path.read_bytes() == b"[1, 2]\n\xff\xfe\n"
    untouched = tmp_path / "clean.jsonl"
    untouched.write_text('{"key": "c"}\n')
    assert ResultsFile(untouched).done == {"c"} and not ResultsFile(untouched).torn_path.exists()


def test_a_results_path_that_cannot_hold_records_is_one_line(tmp_path):
    """A folder, a pipe (reading it would wait forever), a parent that is a file, a
    damaged file whose set-aside path is a folder: a ResultsError, never an OSError."""
    folder = tmp_path / "folder.jsonl"
    folder.mkdir()
    pipe = tmp_path / "pipe.jsonl"
    os.mkfifo(pipe)
    (tmp_path / "file").write_text("")
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text("not json\n")
    (tmp_path / "damaged.jsonl.torn").mkdir()
    for path, words in [
        (folder, "is a folder: move it away"),
        (pipe, "is not a regular file: move it away"),
        (tmp_path / "file" / "r.jsonl", "cannot use results file"),
        (damaged, "damaged.jsonl.torn: Is a directory"),
    ]:
        with pytest.raises(ResultsError) as info:
            ResultsFile(path)
        assert words in str(info.value) and "\n" not in str(info.value)


def test_a_study_whose_episodes_file_is_a_folder_says_so_in_one_line(tmp_path, capsys):
    (tmp_path / "episodes.jsonl").mkdir()
    assert load_experiment("planner_baseline").main(["--out", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == (
        f"planner_baseline.py: error: results file {tmp_path / 'episodes.jsonl'} is a folder: "
        "move it away\n"
    )


def test_a_line_nested_past_the_bound_is_set_aside_unparsed(tmp_path):
    path = tmp_path / "r.jsonl"
    deep = b"[" * 100_000 + b"]" * 100_000  # json.loads alone raises RecursionError
    at_bound = b'{"key": "b", "x": ' + b"[" * 99 + b"]" * 99 + b"}"
    brackets_in_text = json.dumps({"key": "c", "x": "[{" * 10_000}).encode()
    path.write_bytes(b'{"key": "a"}\n' + deep + b"\n" + at_bound + b"\n" + brackets_in_text)
    results = ResultsFile(path)
    assert results.done == {"a", "b", "c"}
    assert results.set_aside == [(2, "nested more than 100 deep (MAX_RECORD_DEPTH)")]
    assert results.torn_path.read_bytes() == deep + b"\n"


def test_too_deep_counts_brackets_outside_strings_only():
    from planloop.results import too_deep

    assert too_deep(b"[" * 6 + b"]" * 6, 5) and not too_deep(b"[" * 5 + b"]" * 5, 5)
    assert not too_deep(json.dumps(["[[[[[[", '\\"[[[[[[', "\\\\"]).encode(), 2)
    assert too_deep(json.dumps([[["\\\\"], [['\\"']]]]).encode(), 3)
    assert too_deep(b"[" * 3 * 2**20, 3 * 2**20 - 1)  # across the pieces it looks at


WRONG = {
    "plan_length_text": ({"plan_length": "ten"}, "plan_length is 'ten', not an integer"),
    "seconds_past_a_float": (
        {"planner_seconds": 10**400},
        "planner_seconds is an integer of more than 18 digits, not a finite number",
    ),
    "seconds_infinite": ({"seconds": float("inf")}, "seconds is inf, not a finite number"),
    "settings_a_list": (
        {"provenance": {"settings": [1, 2]}},
        "provenance.settings is a list, not an object",
    ),
    "dropped_not_a_list": (
        {"provenance": {"request": {"dropped": "temperature"}}},
        "provenance.request.dropped is 'temperature', not a list of text",
    ),
    "usage_calls_text": ({"usage": {"calls": "3"}}, "usage.calls is '3', not an integer"),
    "status_missing": ({"status": None}, "status is None, not text"),
}


@pytest.mark.parametrize("fields, reason", WRONG.values(), ids=WRONG.keys())
def test_a_record_of_the_wrong_schema_is_set_aside_and_replayed(tmp_path, fields, reason):
    """A record with the right key but a field the table reads of the wrong type is set
    aside like a torn line, said in one line, and not counted as done."""
    from planloop.protocols.planner_baseline.study import PlannerBaselineRecord
    from planloop.study.jobs import Study

    study = Study("planner_baseline", "Mystery-BW-v0", record=PlannerBaselineRecord)
    good = {
        "key": "k/0/0",
        "study": study.name,
        "instance": 0,
        "trial": 0,
        "won": True,
        "plan_length": 4,
        "planner_seconds": 0.1,
        "status": "solved",
        "seconds": 1,
        "provenance": {"settings": {"timeout": 60}, "request": None},
    }
    wrong = {**good, "key": "k/1/0", "instance": 1, **fields}
    path = tmp_path / "episodes.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(wrong) + "\n")
    results = ResultsFile(path, study.record_problem)
    assert results.done == {"k/0/0"} and results.set_aside == [(2, reason)]
    report = results.damage_report()
    assert "\n" not in report and f"line 2: {reason}" in report and len(report) < 300
    # another study's record in the same file answers to the shared schema only
    other = {**good, "study": "pddlego", "key": "o/0/0", "plan_length": "n/a"}
    path.write_text(json.dumps(other) + "\n")
    assert ResultsFile(path, study.record_problem).done == {"o/0/0"}


def test_a_schema_names_the_field_and_quotes_little():
    from typing import TypedDict

    from planloop.schema import schema_problem

    class Inner(TypedDict, total=False):
        names: list[str]
        table: dict[str, float]

    class Outer(TypedDict):
        inner: Inner
        flag: bool

    assert schema_problem({"inner": {}, "flag": True}, Outer) is None
    assert schema_problem({"inner": {}}, Outer) == "no flag"
    assert schema_problem({"inner": {"names": ["a", 3]}, "flag": True}, Outer) == (
        "inner.names[1] is 3, not text"
    )
    assert schema_problem({"inner": {"table": {"x": "y" * 10**6}}, "flag": 1}, Outer) == (
        "inner.table.x is 'yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy..., not a finite number"
    )
    assert schema_problem([], Outer) == "the record is a list, not an object"


def test_a_schema_of_literals_takes_only_its_choices():
    from typing import Literal, TypedDict

    from planloop.schema import schema_problem

    class Judged(TypedDict):
        failure: Literal["step_limit", "call_limit"] | None
        level: Literal[1, 2]

    assert schema_problem({"failure": None, "level": 1}, Judged) is None
    assert schema_problem({"failure": "call_limit", "level": 2}, Judged) is None
    assert schema_problem({"failure": "bored", "level": 1}, Judged) == (
        "failure is 'bored', not one of 'step_limit', 'call_limit' or null"
    )
    assert schema_problem({"failure": None, "level": True}, Judged) == (
        "level is True, not one of 1, 2"
    )
