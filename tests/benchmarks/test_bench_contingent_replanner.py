"""``benchmarks/contingent_replanner.py``: the problems it tries, a problem's record and
the table by domain."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def load():
    """The benchmark's module (benchmarks are scripts, not a package)."""
    name = "contingent_replanner_benchmark"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, BENCHMARKS / "contingent_replanner.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def test_without_folders_it_tries_the_shipped_sample_and_generated_wumpus(tmp_path):
    bench = load()
    sample = bench.pairs([], [], tmp_path)
    assert [p.domain_name for p in sample] == list(bench.SAMPLE)
    assert all(p.domain.is_file() and p.problem.is_file() for p in sample)
    wumpus = bench.pairs([], [5, 10], tmp_path)
    assert [bench.label(p.problem) for p in wumpus] == ["wumpus05", "wumpus10"]
    assert {p.suite for p in wumpus} == {"generated"}


def test_a_problem_is_loaded_tracked_and_played(tmp_path):
    bench = load()
    (pair,) = bench.pairs([], [4], tmp_path)
    record = bench.play(pair, seeds=2, budget=30.0, planner="auto")
    assert record["loaded"] and record["tracked"] and "error" not in record
    assert record["steps_per_second"] > 0
    assert [e["seed"] for e in record["episodes"]] == [0, 1]
    assert all(e["won"] and e["stopped"] == "" for e in record["episodes"])


def test_a_problem_that_does_not_load_says_why(tmp_path):
    bench = load()
    (pair,) = bench.pairs([], [4], tmp_path)
    pair.problem.write_text("(define (problem broken)")
    record = bench.play(pair, seeds=1, budget=30.0, planner="auto")
    assert not record["loaded"] and not record["episodes"]
    assert record["error"].startswith("load: ")


def test_the_table_counts_by_domain_and_names_the_largest():
    bench = load()

    def record(problem, size, loaded, wins, speed=None):
        return {
            "suite": "CLG",
            "domain": "wumpus",
            "problem": f"/s/wumpus/{problem}/p.pddl",
            "bytes": size,
            "loaded": loaded,
            "tracked": loaded,
            "steps_per_second": speed,
            "episodes": [{"won": won} for won in wins],
        }

    lines = bench.table(
        [
            record("wumpus05", 10, True, [True, True], 100.0),
            record("wumpus07", 20, True, [False, True], 300.0),
            record("wumpus10", 40, False, []),
        ]
    )
    assert lines[2] == ("| CLG | wumpus | 3 | 2 | 2 | 3/4 | 200 | wumpus07 | wumpus07 | wumpus10 |")
    assert lines[-1] == "| all | | 3 | 2 | 2 | 3/4 | | | | |"


def test_resume_keeps_the_records_an_interrupted_run_wrote(tmp_path):
    bench = load()
    out = tmp_path / "replanner.jsonl"
    assert bench.kept(out) == []
    out.write_text('{"problem": "a.pddl"}\n{"problem": "b.pddl"}\n{"problem": "c.pd')
    assert [r["problem"] for r in bench.kept(out)] == ["a.pddl", "b.pddl"]
