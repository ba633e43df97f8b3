"""The leaderboard from a run's records, as pure functions of the records and a seed.

Per model and family: n, wins, the rate and its Wilson 95% interval, and the lost
episodes by :data:`~.records.FailureKind`. Per model: the macro score (the mean of its
rates over the suite's families it played) with a stratified bootstrap 95% interval,
and its totals (calls, seconds, tokens, dollars). For every pair of models and every
family both played: the difference of rates on the (instance, seed) units both played,
with a paired bootstrap 95% interval.

The bootstraps (:data:`RESAMPLES` resamples, the 2.5th and 97.5th percentiles, numpy's
linear interpolation; an interval that would leave out its estimate is widened to hold
it) are seeded, and each draws from its own stream named by the seed and what it is of:

* the macro score of a model: stream (seed, model). Each family's episodes are
  resampled with replacement within the family and the mean of the resampled rates
  taken. The number of wins in a resample of n episodes holding k wins is drawn as
  Binomial(n, k / n), which is its exact distribution, without drawing each episode.
* a pair's difference: stream (seed, family, n). The n units both played are
  resampled with replacement and the mean of won(a) - won(b) taken on each resample.
  A unit's difference is +1, -1 or 0, so a resample is known by how many of its picks
  fall on units a won and b lost, and on the reverse: every pair of a family sharing n
  units is read off one table of the same resamples (see :func:`_paired`). The draw
  is of the pair turned so that more units go its first model's way, the interval then
  turned back to (a, b). A pair's interval thus depends only on the seed, its family,
  n and those two counts: not on the models' names or ranks, and adding a model to a
  board changes no other number.

Same records and seed, same numbers.
"""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from ..stats import wilson_interval
from .records import (
    FAILURE_KINDS,
    BenchRecord,
    FailureKind,
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
UNKNOWN_LOSS: FailureKind = "gave_up"  # the kind a loss recorded without one counts as
PAIRS_AT_ONCE = 1024  # pairs whose resampled differences are held at once (memory)


def latest(records: Iterable[BenchRecord]) -> list[BenchRecord]:
    """The last record of each key (a rerun appends after the record it replaces), in
    the order the keys first appear."""
    kept: dict[str, BenchRecord] = {}
    for record in records:
        kept[record["key"]] = record
    return list(kept.values())


def separated(pair: Pair) -> bool:
    """Whether the pair's interval excludes 0 (the two models differ on that family)."""
    low, high = pair["ci95"]
    return low > 0 or high < 0


def leaderboard(
    records: Iterable[BenchRecord],
    suite: SuiteInfo,
    settings: Mapping[str, Mapping[str, object]],
    seed: int = SEED,
    resamples: int = RESAMPLES,
) -> Leaderboard:
    """The board of ``records`` (their :func:`latest`; those of families outside the
    suite left out) for ``suite``; ``settings[model]`` (what its calls sent) is copied
    into its row.

    Models are ranked by macro score, then by name. Pairs: for every two models ``a``
    ranked above ``b``, in rank order (``a``'s rank, then ``b``'s), each family both
    played in the suite's order; a family where they share no unit has no pair.
    A model's ``cost_usd`` is None when any of its episodes' is (a price unknown): a sum
    of the known ones would pass for the whole."""
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, not {resamples}")
    in_suite = set(suite["families"])
    kept = [r for r in latest(records) if r["family"] in in_suite]
    by_model: dict[str, list[BenchRecord]] = {}
    for record in kept:
        by_model.setdefault(record["model"], []).append(record)
    rows = [
        _row(model, mine, suite["families"], settings, seed, resamples)
        for model, mine in by_model.items()
    ]
    rows.sort(key=lambda row: (-row["score"]["rate"], row["model"]))
    rank = {row["model"]: i for i, row in enumerate(rows)}
    found: dict[tuple[str, str, str], Pair] = {}
    for family in suite["families"]:
        played = [r for r in kept if r["family"] == family]
        for pair in _family_pairs(played, family, rank, seed, resamples):
            found[pair["a"], pair["b"], pair["family"]] = pair
    order = [row["model"] for row in rows]
    pairs = [
        found[a, b, family]
        for i, a in enumerate(order)
        for b in order[i + 1 :]
        for family in suite["families"]
        if (a, b, family) in found
    ]
    return {"suite": suite, "models": rows, "pairs": pairs}


def _stream(seed: int, *names: str) -> np.random.Generator:
    """The random stream of the interval of ``names``."""
    return np.random.default_rng([seed, *(zlib.crc32(name.encode()) for name in names)])


def _tokens(records: list[BenchRecord]) -> Tokens:
    """The tokens of ``records``, summed."""
    return {
        "prompt": sum(r["tokens"]["prompt"] for r in records),
        "completion": sum(r["tokens"]["completion"] for r in records),
        "reasoning": sum(r["tokens"]["reasoning"] for r in records),
    }


def _cost(records: list[BenchRecord]) -> float | None:
    """The dollars of ``records``; None when one has no price (the sum of the others
    would pass for the whole)."""
    costs = [r["cost_usd"] for r in records]
    known = [c for c in costs if c is not None]
    return round(sum(known), 6) if len(known) == len(costs) else None


def _row(
    model: str,
    records: list[BenchRecord],
    families: Sequence[str],
    settings: Mapping[str, Mapping[str, object]],
    seed: int,
    resamples: int,
) -> ModelRow:
    scores: dict[str, FamilyScore] = {}
    for family in families:
        played = [r for r in records if r["family"] == family]
        if not played:
            continue
        won = sum(r["won"] for r in played)
        low, high = wilson_interval(won, len(played))
        lost = Counter(r["failure"] or UNKNOWN_LOSS for r in played if not r["won"])
        scores[family] = {
            "n": len(played),
            "won": won,
            "rate": won / len(played),
            "ci95": [low, high],
            "failures": {  # the most frequent first, then in FailureKind's order
                kind: lost[kind]
                for kind in sorted(lost, key=lambda k: (-lost[k], FAILURE_KINDS.index(k)))
            },
            "calls": sum(r["calls"] for r in played),
            "tokens": _tokens(played),
            "cost_usd": _cost(played),
        }
    return {
        "model": model,
        "settings": dict(settings.get(model, {})),
        "calls": sum(r["calls"] for r in records),
        "seconds": round(sum(r["seconds"] for r in records), 3),
        "tokens": _tokens(records),
        "cost_usd": _cost(records),
        "score": macro_score(
            [s["won"] for s in scores.values()],
            [s["n"] for s in scores.values()],
            _stream(seed, model),
            resamples,
        ),
        "families": scores,
    }


def macro_score(
    won: Sequence[int], n: Sequence[int], rng: np.random.Generator, resamples: int = RESAMPLES
) -> Interval:
    """The mean of the rates ``won[i] / n[i]`` and its stratified bootstrap 95% interval
    (each family's episodes resampled within the family: its wins drawn as
    Binomial(n, rate)); ``{"rate": 0, "ci95": [0, 0]}`` for no family."""
    if not n:
        return {"rate": 0.0, "ci95": [0.0, 0.0]}
    sizes, wins = np.asarray(n), np.asarray(won)
    rates = wins / sizes
    rate = float(rates.mean())
    means = (rng.binomial(sizes, rates, size=(resamples, len(sizes))) / sizes).mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return {"rate": rate, "ci95": [float(min(low, rate)), float(max(high, rate))]}


def _family_pairs(
    records: list[BenchRecord],
    family: str,
    rank: Mapping[str, int],
    seed: int,
    resamples: int,
) -> list[Pair]:
    """The pairs of one family: every two models that share a unit of it, ``a`` ranked
    above ``b`` (the bootstrap: see the module's doc)."""
    units = {
        unit: i for i, unit in enumerate(sorted({(r["instance"], r["seed"]) for r in records}))
    }
    models = sorted({r["model"] for r in records}, key=rank.__getitem__)
    row = {model: i for i, model in enumerate(models)}
    won = np.zeros((len(models), len(units)), dtype=np.int64)
    lost = np.zeros_like(won)
    for record in records:
        at = row[record["model"]], units[record["instance"], record["seed"]]
        won[at], lost[at] = (1, 0) if record["won"] else (0, 1)
    shared = (won + lost) @ (won + lost).T  # [a, b]: the units a and b both played
    beats = won @ lost.T  # [a, b]: of them, those a won and b lost
    first, second = np.triu_indices(len(models), 1)  # a ranked above b
    keep = shared[first, second] > 0
    first, second = first[keep], second[keep]
    n = shared[first, second]
    # The draw is of the pair turned so that more units go its first model's way.
    turned = beats[first, second] < beats[second, first]
    ahead = np.maximum(beats[first, second], beats[second, first])
    behind = np.minimum(beats[first, second], beats[second, first])
    sign = np.where(turned, -1, 1)
    diff = sign * (ahead - behind) / n
    ci95 = np.zeros((len(n), 2))
    for size in np.unique(n):
        these = np.flatnonzero(n == size)
        classes, which = np.unique(
            np.stack([ahead[these], behind[these]], axis=1), axis=0, return_inverse=True
        )
        drawn = _paired(_stream(seed, family, str(size)), int(size), classes, resamples)
        ci95[these] = drawn[which.ravel()] * sign[these, None]
    ci95.sort(axis=1)  # a turned pair's negated interval
    pairs: list[Pair] = []
    for i, (a, b) in enumerate(zip(first, second, strict=True)):
        low, high = min(ci95[i, 0], diff[i]), max(ci95[i, 1], diff[i])
        pairs.append(
            {
                "a": models[a],
                "b": models[b],
                "family": family,
                "n": int(n[i]),
                "diff": float(diff[i]),
                "ci95": [float(low), float(high)],
            }
        )
    return pairs


def _paired(rng: np.random.Generator, size: int, classes: np.ndarray, resamples: int) -> np.ndarray:
    """The 95% intervals, (lo, hi) a row, of the mean difference on ``size`` shared units
    for each row (ahead, behind) of ``classes``: the units one model won and the other
    lost, and the reverse (the rest tie).

    The units are resampled with replacement: each resample picks ``size`` positions
    among ``size``; with the units laid out ahead first, then behind, then tied, a
    resample holds ``T[ahead]`` ahead and ``T[ahead + behind] - T[ahead]`` behind, where
    ``T[k]`` counts its picks below position k. One table T of the stream's resamples
    serves every pair of that size."""
    picks = rng.integers(0, size, size=(resamples, size))
    offsets = (np.arange(resamples) * size)[:, None]
    counts = np.bincount((picks + offsets).ravel(), minlength=resamples * size)
    below = np.zeros((size + 1, resamples), dtype=np.int64)  # [k, r]: T[k] of resample r
    np.cumsum(counts.reshape(resamples, size).T, axis=0, out=below[1:])
    intervals = np.zeros((len(classes), 2))
    for start in range(0, len(classes), PAIRS_AT_ONCE):
        ahead, behind = classes[start : start + PAIRS_AT_ONCE].T
        diffs = (2 * below[ahead] - below[ahead + behind]) / size  # pairs x resamples
        intervals[start : start + PAIRS_AT_ONCE] = np.percentile(diffs, [2.5, 97.5], axis=1).T
    return intervals
