"""The board's statistics: Wilson intervals per family, the macro score's stratified
bootstrap, paired differences on shared units only, seeded, latest record wins."""

import pytest

from planloop.bench.records import Leaderboard
from planloop.bench.scores import leaderboard, separated
from planloop.schema import schema_problem
from planloop.stats import wilson_interval

SUITE = {"name": "t", "sha256": "0" * 64, "families": ["a", "b"]}


def record(model, family, instance, won, seed=0, **extra):
    return {
        "key": f"k/{model}/{family}/{instance}/{seed}", "suite": "0" * 64, "model": model,
        "family": family, "instance": str(instance), "seed": seed, "policy": "p", "won": won,
        "failure": None if won else "step_limit", "detail": "" if won else "x", "steps": 1,
        "calls": 2, "cached_calls": 0, "tokens": {"prompt": 10, "completion": 5, "reasoning": 1},
        "cost_usd": 0.5, "seconds": 1.0, "transcript": "t.json", **extra,
    }  # fmt: skip


def board(records, **options) -> Leaderboard:
    return leaderboard(records, SUITE, {"m": {"sent": {"temperature": 0}}}, **options)


def test_rates_intervals_failures_and_totals():
    records = [record("m", "a", i, i < 7) for i in range(10)] + [record("m", "b", 0, True)]
    [row] = board(records)["models"]
    a = row["families"]["a"]
    assert (a["n"], a["won"], a["rate"]) == (10, 7, 0.7)
    assert a["ci95"] == pytest.approx(list(wilson_interval(7, 10)))
    assert a["failures"] == {"step_limit": 3}
    assert row["score"]["rate"] == pytest.approx((0.7 + 1.0) / 2)
    low, high = row["score"]["ci95"]
    assert low <= row["score"]["rate"] <= high and high <= 1.0
    assert row["calls"] == 22 and row["tokens"] == {
        "prompt": 110,
        "completion": 55,
        "reasoning": 11,
    }
    assert row["cost_usd"] == pytest.approx(5.5) and row["settings"] == {"sent": {"temperature": 0}}
    assert schema_problem(board(records), Leaderboard) is None


def test_a_perfect_model_against_a_losing_one_is_separated():
    records = [record("good", "a", i, True) for i in range(30)]
    records += [record("bad", "a", i, False) for i in range(30)]
    [pair] = board(records)["pairs"]
    assert (pair["a"], pair["b"], pair["n"], pair["diff"]) == ("good", "bad", 30, 1.0)
    assert pair["ci95"] == [1.0, 1.0] and separated(pair)


def test_identical_models_differ_by_nothing():
    records = [record(m, "a", i, i % 2 == 0) for m in ("x", "y") for i in range(20)]
    [pair] = board(records)["pairs"]
    assert pair["diff"] == 0 and pair["ci95"] == [0.0, 0.0] and not separated(pair)


def test_pairs_use_only_the_units_both_played():
    records = [record("x", "a", i, True) for i in range(10)]
    records += [record("y", "a", i, i >= 5) for i in range(5, 20)]  # shares 5..9, all won
    [pair] = board(records)["pairs"]
    assert pair["n"] == 5 and pair["diff"] == 0.0


def test_the_bootstrap_is_seeded_and_a_new_model_changes_no_interval():
    records = [record(m, "a", i, (i * 7 + len(m)) % 3 == 0) for m in ("x", "yy") for i in range(40)]
    first, again = board(records), board(records)
    assert first == again
    other = board(records, seed=1)
    assert other["pairs"][0]["diff"] == first["pairs"][0]["diff"]
    more = board(records + [record("zzz", "a", i, True) for i in range(40)])
    ours = {(p["a"], p["b"]): p["ci95"] for p in first["pairs"]}
    assert all(
        ours[(p["a"], p["b"])] == p["ci95"] for p in more["pairs"] if (p["a"], p["b"]) in ours
    )
    scores = {r["model"]: r["score"] for r in first["models"]}
    assert all(scores[r["model"]] == r["score"] for r in more["models"] if r["model"] in scores)


def test_the_latest_record_of_a_key_counts_and_cost_unknown_stays_unknown():
    records = [
        record("m", "a", 0, False),
        record("m", "a", 0, True),
        record("m", "b", 0, True, cost_usd=None),
    ]
    [row] = board(records)["models"]
    assert row["families"]["a"]["won"] == 1 and row["families"]["a"]["n"] == 1
    assert row["cost_usd"] is None


def test_models_are_ranked_by_score():
    records = [record("low", "a", 0, False), record("high", "a", 0, True)]
    assert [r["model"] for r in board(records)["models"]] == ["high", "low"]
