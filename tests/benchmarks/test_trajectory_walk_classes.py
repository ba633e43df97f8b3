"""``benchmarks/trajectory_walk.py``: where a walk stops and why, on hand-made calls."""

import importlib.util
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))
spec = importlib.util.spec_from_file_location("trajectory_walk", BENCHMARKS / "trajectory_walk.py")
tw = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tw)


def call(n, outcome, actions=None, env="coin"):
    return {
        "id": f"log#{n}",
        "env": env,
        "df_sha": f"d{n}",
        "pf_sha": f"p{n}",
        "recorded": {"outcome": outcome, "actions": actions},
    }


def test_each_class_of_stop():
    move = call(0, "plan", ["move east", "move north"])
    assert (
        tw.stop_class(
            move,
            {"plan": ["(move r1 north)", "(move r2 east)"], "stage": None},
            ["move north", "move east"],
        )
        == "tie among equal plans"
    )
    assert (
        tw.stop_class(move, {"plan": ["(move r1 north)"], "stage": None}, ["move north"])
        == "a longer or shorter plan"
    )
    assert (
        tw.stop_class(move, {"plan": None, "stage": "syntax"}, [])
        == "planloop refuses what FF read"
    )
    assert (
        tw.stop_class(call(1, "error"), {"plan": ["(move r1 west)"], "stage": None}, ["move west"])
        == "FF refused what planloop reads"
    )
    assert (
        tw.stop_class(
            call(2, "solver_crash"), {"plan": ["(move r1 west)"], "stage": None}, ["move west"]
        )
        == "solver crash"
    )
    assert tw.stop_class(move, {"plan": None, "stage": "planner"}, []) == "other"


def test_a_walk_stops_at_the_first_differing_call_under_each_rule():
    calls = [
        call(0, "no_plan"),
        call(1, "plan", ["move east", "move west"]),
        call(2, "plan", ["move north"]),
    ]
    records = {
        ("d0", "p0"): {"plan": ["(move r0 south)"], "stage": None},
        ("d1", "p1"): {"plan": ["(move r0 east)"], "stage": None},
        ("d2", "p2"): {"plan": None, "stage": "syntax"},
    }
    stopped = tw.walk(calls, records)
    assert stopped == {
        "A_all": "other",
        "B_all": "other",
        "A_plan": "planloop refuses what FF read",
    }


def test_figures_count_whole_episodes_with_a_recorded_plan():
    walks = [
        ("coin", True, {}),
        ("coin", True, {"B_all": "other"}),
        ("coin", False, {}),
        (
            "alfworld",
            True,
            {"A_plan": "solver crash", "A_all": "solver crash", "B_all": "solver crash"},
        ),
    ]
    found = tw.figures(walks)
    assert found["coin"]["episodes"] == 2
    assert found["coin"]["whole"] == {"A_plan": 2, "A_all": 2, "B_all": 1}
    assert found["alfworld"]["stops"]["A_plan"]["solver crash"] == 1
    assert "| CoinCollector | 2 | 100.0% (2) | 100.0% (2) | 50.0% (1) |" in tw.tables(found)


def test_a_walk_says_where_it_stopped():
    calls = [call(0, "plan", ["move east"]), call(1, "plan", ["move north"])]
    records = {
        ("d0", "p0"): {"plan": ["(move r0 east)"], "stage": None},
        ("d1", "p1"): {"plan": ["(move r0 south)"], "stage": None},
    }
    where: dict = {}
    tw.walk(calls, records, where)
    assert where == {rule: calls[1]["id"] for rule in tw.RULES}
