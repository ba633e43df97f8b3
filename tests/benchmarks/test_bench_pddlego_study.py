"""``benchmarks/bench_pddlego_study.py``: the study timed against another checkout. Here
the other checkout is this one, so both sides must win the same episodes with the same
commands, and a folder that holds no study is refused in one line."""

import importlib.util
import json
from pathlib import Path

import pytest

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_pddlego_study.py"


def bench():
    spec = importlib.util.spec_from_file_location("bench_pddlego_study", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_checkout_timed_against_itself_plays_the_same(capsys):
    assert (
        bench().main(
            ["--base", str(BENCHMARK.parents[1]), "--runs", "1", "--instances", "0:2", "--json"]
        )
        == 0
    )
    result = json.loads(capsys.readouterr().out)
    assert (result["episodes"], result["won"], result["same_commands"]) == (2, 2, True)
    assert len(result["base_seconds"]) == len(result["this_seconds"]) == 1
    assert all(s > 0 for s in result["base_seconds"] + result["this_seconds"])
    assert result["ratio"] > 0


def test_a_base_without_the_study_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit):
        bench().main(["--base", str(tmp_path)])
    assert "holds no experiments/pddlego.py" in capsys.readouterr().err


def test_a_study_that_fails_is_reported_in_one_line(capsys):
    with pytest.raises(SystemExit, match=r"^the study at .* failed: .*there is no instance 9000"):
        bench().main(["--base", str(BENCHMARK.parents[1]), "--runs", "1", "--instances", "9000"])
