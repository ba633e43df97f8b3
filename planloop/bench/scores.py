"""The leaderboard from a run's records: per model and family n, wins, rate and its
Wilson 95% interval, failures by kind; a macro score per model (the mean of its family
rates) with a seeded stratified bootstrap interval; and for every pair of models and
every family the paired difference on the episodes both played, with a seeded paired
bootstrap 95% interval. Same records and seed, same numbers; each interval draws from
its own stream (the seed and what it is of), so a model added to a board changes no
other model's intervals."""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from ..stats import wilson_interval
from .records import (
    BenchRecord,
    FamilyScore,
    Interval,
    Leaderboard,
    ModelRow,
    Pair,
    SuiteInfo,
    Tokens,
)

RESAMPLES = 2000  # bootstrap resamples of every interval
SEED = 0  # the bootstrap's seed


def latest(records: Iterable[BenchRecord]) -> list[BenchRecord]:
    """The last record of each key, in the order keys first appear (a rerun appends
    after the record it replaces)."""
    kept: dict[str, BenchRecord] = {}
    for record in records:
        kept.pop(record["key"], None)
        kept[record["key"]] = record
    return list(kept.values())


def leaderboard(
    records: Iterable[BenchRecord],
    suite: SuiteInfo,
    settings: Mapping[str, Mapping[str, object]],
    seed: int = SEED,
    resamples: int = RESAMPLES,
) -> Leaderboard:
    """The board of ``records`` (their latest by key) for ``suite``; ``settings`` by model
    (what its calls sent) is copied into its row. Models are ranked by macro score
    (then by name); pairs follow that order, ``a`` ranked above ``b``."""
    kept = latest(records)
    models = list(dict.fromkeys(r["model"] for r in kept))
    families = [f for f in suite["families"] if any(r["family"] == f for r in kept)]
    rows = [
        _row(model, [r for r in kept if r["model"] == model], families, settings, seed, resamples)
        for model in models
    ]
    rows.sort(key=lambda row: (-row["score"]["rate"], row["model"]))
    order = [row["model"] for row in rows]
    pairs: list[Pair] = []
    for i, a in enumerate(order):
        for b in order[i + 1 :]:
            for family in families:
                pair = _pair(kept, a, b, family, _stream(seed, a, b, family), resamples)
                if pair is not None:
                    pairs.append(pair)
    return {"suite": suite, "models": rows, "pairs": pairs}


def separated(pair: Pair) -> bool:
    """Whether the pair's interval excludes 0 (the two models differ on that family)."""
    low, high = pair["ci95"]
    return low > 0 or high < 0


def _stream(seed: int, *names: str) -> np.random.Generator:
    """The bootstrap's random stream for the interval of ``names``."""
    return np.random.default_rng([seed, *(zlib.crc32(name.encode()) for name in names)])


def _row(
    model: str,
    records: list[BenchRecord],
    families: Sequence[str],
    settings: Mapping[str, Mapping[str, object]],
    seed: int,
    resamples: int,
) -> ModelRow:
    scores: dict[str, FamilyScore] = {}
    outcomes: list[np.ndarray] = []
    for family in families:
        played = [r for r in records if r["family"] == family]
        if not played:
            continue
        won = sum(r["won"] for r in played)
        low, high = wilson_interval(won, len(played))
        failures = Counter(str(r["failure"]) for r in played if not r["won"])
        scores[family] = {
            "n": len(played),
            "won": won,
            "rate": won / len(played),
            "ci95": [low, high],
            "failures": dict(sorted(failures.items())),
        }
        outcomes.append(np.array([r["won"] for r in played], dtype=float))
    tokens: Tokens = {
        key: sum(r["tokens"][key] for r in records)  # type: ignore[literal-required]
        for key in ("prompt", "completion", "reasoning")
    }  # type: ignore[assignment]
    costs = [r["cost_usd"] for r in records]
    return {
        "model": model,
        "settings": dict(settings.get(model, {})),
        "calls": sum(r["calls"] for r in records),
        "seconds": round(sum(r["seconds"] for r in records), 3),
        "tokens": tokens,
        "cost_usd": None if any(c is None for c in costs) else round(sum(costs), 6),  # type: ignore[arg-type]
        "score": _macro(outcomes, _stream(seed, model), resamples),
        "families": scores,
    }


def _macro(outcomes: list[np.ndarray], rng: np.random.Generator, resamples: int) -> Interval:
    """The mean of the family rates and its stratified bootstrap 95% interval: each
    family's episodes resampled with replacement within the family, the mean of the
    resampled rates taken, ``resamples`` times; the 2.5th and 97.5th percentiles."""
    if not outcomes:
        return {"rate": 0.0, "ci95": [0.0, 0.0]}
    rate = float(np.mean([o.mean() for o in outcomes]))
    means = np.zeros(resamples)
    for won in outcomes:
        picks = rng.integers(0, len(won), size=(resamples, len(won)))
        means += won[picks].mean(axis=1)
    means /= len(outcomes)
    low, high = np.percentile(means, [2.5, 97.5])
    return {"rate": rate, "ci95": [float(min(low, rate)), float(max(high, rate))]}


def _pair(
    records: list[BenchRecord],
    a: str,
    b: str,
    family: str,
    rng: np.random.Generator,
    resamples: int,
) -> Pair | None:
    """rate(a) - rate(b) on the (instance, seed) units of ``family`` both played, and its
    paired bootstrap 95% interval (units resampled with replacement); None when they
    share no unit."""
    won = {
        model: {(r["instance"], r["seed"]): float(r["won"]) for r in records
                if r["model"] == model and r["family"] == family}
        for model in (a, b)
    }  # fmt: skip
    units = sorted(won[a].keys() & won[b].keys())
    if not units:
        return None
    diffs = np.array([won[a][u] - won[b][u] for u in units])
    picks = rng.integers(0, len(diffs), size=(resamples, len(diffs)))
    low, high = np.percentile(diffs[picks].mean(axis=1), [2.5, 97.5])
    diff = float(diffs.mean())
    return {
        "a": a,
        "b": b,
        "family": family,
        "n": len(units),
        "diff": diff,
        "ci95": [float(low), float(high)],
    }
