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
