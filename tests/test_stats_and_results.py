"""Wilson intervals and resumable JSON-lines results."""

import json

import pytest

from planloop.results import ResultsFile, config_hash
from planloop.stats import wilson_interval


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
