"""The bench's statistics: Wilson intervals per model and family, the macro score and its
stratified bootstrap, the paired bootstrap between models on the units both played
(seeded, symmetric, unmoved by other models), the latest record of a key, the totals."""

import random
import time

import pytest

from planloop.bench.records import BenchRecord, Leaderboard, SuiteInfo
from planloop.bench.scores import latest, leaderboard, separated
from planloop.schema import schema_problem

SUITE: SuiteInfo = {"name": "test", "sha256": "0" * 64, "families": ["blocksworld", "mystery"]}


def record(model: str, family: str, instance, won: bool, seed: int = 0, **fields) -> BenchRecord:
    """One episode's record as the runner writes it."""
    value: BenchRecord = {
        "key": f"{'0' * 16}/{model}/{family}/{instance}/{seed}",
        "suite": "0" * 64,
        "model": model,
        "family": family,
        "instance": str(instance),
        "seed": seed,
        "policy": "closed-loop",
        "won": won,
        "failure": None if won else "goal_not_reached",
        "detail": "" if won else "the plan ended short of the goal",
        "steps": 3,
        "calls": 2,
        "cached_calls": 0,
        "tokens": {"prompt": 100, "completion": 20, "reasoning": 5},
        "cost_usd": 0.001,
        "seconds": 0.5,
        "transcript": f"transcripts/{model}/{family}/{instance}-s{seed}.json",
    }
    value.update(fields)  # type: ignore[typeddict-item]
    return value


def played(model: str, wins: list[bool], family: str = "blocksworld") -> list[BenchRecord]:
    return [record(model, family, i, won) for i, won in enumerate(wins)]


def coin_flips(model: str, n: int, seed: int, family: str = "blocksworld") -> list[BenchRecord]:
    draw = random.Random(f"{model}/{seed}")
    return played(model, [draw.random() < 0.5 for _ in range(n)], family)


def board_of(records, **options):
    return leaderboard(records, SUITE, {}, **options)


def pair_of(board, a: str, b: str, family: str = "blocksworld"):
    found = [p for p in board["pairs"] if (p["a"], p["b"], p["family"]) == (a, b, family)]
    assert len(found) == 1, board["pairs"]
    return found[0]


def test_wilson_intervals_against_known_values():
    records = (
        played("half", [True] * 5 + [False] * 5)
        + played("none", [False] * 10)
        + played("all", [True] * 10)
        + played("some", [True] * 8 + [False] * 12)
    )
    rows = {row["model"]: row["families"]["blocksworld"] for row in board_of(records)["models"]}
    assert rows["half"]["ci95"] == pytest.approx([0.2366, 0.7634], abs=1e-4)
    assert rows["none"]["ci95"] == pytest.approx([0.0, 0.2775], abs=1e-4)
    assert rows["all"]["ci95"] == pytest.approx([0.7225, 1.0], abs=1e-4)
    assert rows["some"]["ci95"] == pytest.approx([0.2188, 0.6134], abs=1e-4)
    assert (rows["some"]["n"], rows["some"]["won"], rows["some"]["rate"]) == (20, 8, 0.4)


def test_a_perfect_model_against_one_that_never_wins_is_separated():
    board = board_of(played("perfect", [True] * 30) + played("hopeless", [False] * 30))
    pair = pair_of(board, "perfect", "hopeless")
    assert pair["n"] == 30 and pair["diff"] == 1.0
    assert pair["ci95"][0] > 0 and pair["ci95"] == [1.0, 1.0] and separated(pair)
    assert pair_of(board_of(played("a", [False] * 30) + played("b", [True] * 30)), "b", "a") == {
        **pair,
        "a": "b",
        "b": "a",
    }


def test_two_identical_models_differ_by_nothing():
    wins = [i % 3 == 0 for i in range(30)]
    board = board_of(played("twin-a", wins) + played("twin-b", wins))
    pair = pair_of(board, "twin-a", "twin-b")  # equal scores: ranked by name
    assert (pair["n"], pair["diff"], pair["ci95"]) == (30, 0.0, [0.0, 0.0])
    assert not separated(pair)


def test_separated_means_the_interval_excludes_zero():
    base = {"a": "x", "b": "y", "family": "f", "n": 5, "diff": 0.2}
    assert separated({**base, "ci95": [0.01, 0.4]})  # type: ignore[typeddict-item]
    assert separated({**base, "diff": -0.2, "ci95": [-0.4, -0.01]})  # type: ignore[typeddict-item]
    assert not separated({**base, "ci95": [0.0, 0.4]})  # type: ignore[typeddict-item]
    assert not separated({**base, "ci95": [-0.1, 0.4]})  # type: ignore[typeddict-item]


def test_the_bootstrap_is_seeded():
    records = coin_flips("alpha", 40, 1) + coin_flips("beta", 40, 2)
    records += coin_flips("alpha", 25, 3, "mystery") + coin_flips("beta", 25, 4, "mystery")

    def intervals(seed: int):
        board = board_of(records, seed=seed)
        return [p["ci95"] for p in board["pairs"]] + [r["score"]["ci95"] for r in board["models"]]

    assert intervals(0) == intervals(0) and intervals(7) == intervals(7)
    assert any(intervals(seed) != intervals(0) for seed in (1, 2, 3))
    same = board_of(records)
    assert same == board_of(list(records)) == board_of(records, seed=0, resamples=2000)


def test_more_resamples_give_an_interval_near_the_normal_one():
    """A sanity check of the paired bootstrap's width: the mean of 100 differences of
    +1 and -1 in equal numbers, and 0, has a 95% interval of about +-1.96 sd/sqrt(n)."""
    records = played("a", [True] * 25 + [False] * 75)
    records += played("b", [False] * 25 + [True] * 25 + [False] * 50)
    pair = pair_of(board_of(records, resamples=20000), "a", "b")
    half = 1.96 * (0.5 / 100) ** 0.5  # the differences' sd is sqrt(0.5)
    assert pair["diff"] == 0.0
    assert pair["ci95"] == pytest.approx([-half, half], abs=0.015)


def test_pairs_are_scored_on_the_units_both_played():
    """``partial`` played instances 0-9 (won 0-4), ``full`` 5-14 (won them all): on the
    five instances both played ``full`` won every one and ``partial`` none, though their
    overall rates differ by only 50 points; on mystery they share nothing: no pair."""
    records = [record("partial", "blocksworld", i, i < 5) for i in range(10)]
    records += [record("full", "blocksworld", i, True) for i in range(5, 15)]
    records += [record("partial", "mystery", "x", True), record("full", "mystery", "y", True)]
    records += [record("full", "blocksworld", 5, True, seed=1)]  # a seed partial never played
    board = board_of(records)
    assert [row["model"] for row in board["models"]] == ["full", "partial"]
    pair = pair_of(board, "full", "partial")
    assert (pair["n"], pair["diff"]) == (5, 1.0) and separated(pair)
    assert [p["family"] for p in board["pairs"]] == ["blocksworld"]
    # the other way round: rates 1.0 and 0.33 overall, equal on the five units shared
    records = [record("x", "blocksworld", i, True) for i in range(10)]
    records += [record("y", "blocksworld", i, 5 <= i < 10) for i in range(5, 20)]
    [pair] = board_of(records)["pairs"]
    assert (pair["n"], pair["diff"], pair["ci95"]) == (5, 0.0, [0.0, 0.0])


def test_a_pair_depends_on_its_own_outcomes_only():
    """Not on the other models on the board, nor on the two models' names or ranks."""
    records = coin_flips("m-one", 30, 1) + coin_flips("m-two", 30, 2)
    records += played("m-one", [True] * 10, "mystery") + played("m-two", [False] * 10, "mystery")
    alone = board_of(records)
    assert [row["model"] for row in alone["models"]] == ["m-one", "m-two"]
    pair = pair_of(alone, "m-one", "m-two")
    assert 0 < pair["n"] == 30
    crowded = board_of(records + coin_flips("m-three", 30, 3) + played("m-four", [True] * 30))
    assert pair_of(crowded, "m-one", "m-two") == pair
    before = {row["model"]: row for row in alone["models"]}
    assert all(row == before[row["model"]] for row in crowded["models"] if row["model"] in before)
    # renamed: the same numbers
    names = {"m-one": "z-one", "m-two": "a-two"}
    renamed = board_of([{**r, "model": names[r["model"]]} for r in records])
    assert pair_of(renamed, "z-one", "a-two") | {"a": "m-one", "b": "m-two"} == pair
    # ranked the other way (mystery turned round): the same interval, turned
    swapped = [r for r in records if r["family"] == "blocksworld"]
    swapped += played("m-one", [False] * 10, "mystery") + played("m-two", [True] * 10, "mystery")
    turned = pair_of(board_of(swapped), "m-two", "m-one")
    assert turned["diff"] == -pair["diff"]
    assert turned["ci95"] == [-pair["ci95"][1], -pair["ci95"][0]]


def test_the_macro_score_is_the_mean_of_the_family_rates_within_its_interval():
    """Not the pooled rate: 9 of 10 on blocksworld and 6 of 30 on mystery score
    (0.9 + 0.2) / 2 = 0.55, where the pooled rate is 15 / 40."""
    records = played("m", [True] * 9 + [False]) + played("m", [True] * 6 + [False] * 24, "mystery")
    row = board_of(records)["models"][0]
    low, high = row["score"]["ci95"]
    assert row["score"]["rate"] == pytest.approx(0.55)
    assert low < 0.55 < high and 0.3 < low and high < 0.8
    for seed in range(20):
        low, high = board_of(records, seed=seed)["models"][0]["score"]["ci95"]
        assert low <= 0.55 <= high
    only = board_of(played("n", [True, False]))["models"][0]  # mystery not played
    assert only["score"]["rate"] == 0.5 and list(only["families"]) == ["blocksworld"]


def test_the_latest_record_of_a_key_counts():
    first = record("m", "blocksworld", 0, False, calls=9)
    rerun = record("m", "blocksworld", 0, True, calls=1)
    other = record("m", "blocksworld", 1, False)
    assert latest([first, other, rerun]) == [rerun, other]
    row = board_of([first, other, rerun])["models"][0]
    assert row["families"]["blocksworld"]["n"] == 2 and row["families"]["blocksworld"]["won"] == 1
    assert row["calls"] == 1 + 2


def test_failures_count_the_losses_by_kind():
    records = [
        record("m", "blocksworld", 0, True),
        record("m", "blocksworld", 1, False, failure="invalid_action"),
        record("m", "blocksworld", 2, False, failure="step_limit"),
        record("m", "blocksworld", 3, False, failure="step_limit"),
        record("m", "blocksworld", 4, False, failure=None),  # a loss without a kind
    ]
    failures = board_of(records)["models"][0]["families"]["blocksworld"]["failures"]
    assert failures == {"step_limit": 2, "invalid_action": 1, "gave_up": 1}
    assert list(failures) == ["step_limit", "invalid_action", "gave_up"]  # most first


def test_totals_settings_ranking_and_unknown_costs():
    records = played("cheap", [True, False]) + played("cheap", [True], "mystery")
    records += [record("priceless", "blocksworld", 0, True, cost_usd=None)]
    records += [record("priceless", "blocksworld", 1, True, cost_usd=0.5)]
    records += played("also-perfect", [True, True])
    records += [record("elsewhere", "coincollector", 0, True)]  # not a family of the suite
    settings = {"cheap": {"temperature": 0}, "priceless": {"reasoning_effort": "low"}}
    board = leaderboard(records, SUITE, settings)
    assert board["suite"] == SUITE
    assert [row["model"] for row in board["models"]] == ["also-perfect", "priceless", "cheap"]
    rows = {row["model"]: row for row in board["models"]}
    cheap = rows["cheap"]
    assert cheap["calls"] == 6 and cheap["seconds"] == 1.5
    assert cheap["tokens"] == {"prompt": 300, "completion": 60, "reasoning": 15}
    assert cheap["cost_usd"] == pytest.approx(0.003)
    assert cheap["settings"] == {"temperature": 0} and rows["also-perfect"]["settings"] == {}
    assert cheap["score"]["rate"] == pytest.approx(0.75)
    assert rows["priceless"]["cost_usd"] is None  # one unknown price: no sum passes for it
    assert all(p["family"] in SUITE["families"] for p in board["pairs"])
    order = [(p["a"], p["b"], p["family"]) for p in board["pairs"]]
    assert order == [
        ("also-perfect", "priceless", "blocksworld"),
        ("also-perfect", "cheap", "blocksworld"),
        ("priceless", "cheap", "blocksworld"),
    ]  # a ranked above b, in rank order, then the suite's families
    assert schema_problem(board, Leaderboard) is None
    with pytest.raises(ValueError):
        leaderboard(records, SUITE, settings, resamples=0)


def test_no_records_no_board():
    assert leaderboard([], SUITE, {}) == {"suite": SUITE, "models": [], "pairs": []}


@pytest.mark.slow
def test_a_hundred_models_on_ten_families_in_seconds():
    """300,000 episodes: 100 models x 10 families x 300, each model missing a few
    different episodes (so the pairs share different units)."""
    families = [f"family-{i}" for i in range(10)]
    draw = random.Random(0)
    records = [
        record(f"model-{m}", family, i, draw.random() < m / 100)
        for m in range(100)
        for family in families
        for i in range(300)
        if draw.random() > 0.01
    ]
    start = time.monotonic()
    board = leaderboard(records, {**SUITE, "families": families}, {})
    assert time.monotonic() - start < 30
    assert len(board["models"]) == 100 and len(board["pairs"]) == 100 * 99 // 2 * 10
    assert board["models"][0]["score"]["rate"] > 0.9 > board["models"][-1]["score"]["rate"]


def test_each_cell_counts_its_calls_tokens_and_dollars():
    records = played("m", [True, False, True]) + played("m", [True], "mystery")
    records.append(record("m", "mystery", 9, True, cost_usd=None))
    cells = board_of(records)["models"][0]["families"]
    blocks, mystery = cells["blocksworld"], cells["mystery"]
    assert blocks["calls"] == 6 and blocks["tokens"] == {
        "prompt": 300,
        "completion": 60,
        "reasoning": 15,
    }
    assert blocks["cost_usd"] == pytest.approx(0.003)
    assert mystery["calls"] == 4 and mystery["cost_usd"] is None  # one episode had no price
