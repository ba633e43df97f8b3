"""Honest statistics: success intervals, tests between conditions, robust summaries of
times, and association between failing actions and predicates."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


def wilson_interval(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval (95% by default) for a success proportion."""
    if trials <= 0:
        return 0.0, 1.0
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be within 0..{trials}, not {successes}")
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class ZTest:
    """A two-proportion z-test: ``z`` (positive when the first rate is higher), the
    two-sided ``p`` value and Cohen's ``h`` (the same sign as ``z``)."""

    z: float
    p: float
    h: float


def two_proportion_z_test(wins_a: int, n_a: int, wins_b: int, n_b: int) -> ZTest:
    """The pooled two-proportion z-test of ``wins_a/n_a`` against ``wins_b/n_b``.

    z = (p_a - p_b) / sqrt(p (1 - p) (1/n_a + 1/n_b)) with the pooled p = (wins_a +
    wins_b) / (n_a + n_b); p = 2 (1 - Phi(|z|)) = erfc(|z| / sqrt 2); Cohen's h =
    2 asin(sqrt p_a) - 2 asin(sqrt p_b). When both samples are all wins or all losses
    the rates are equal: z = 0, p = 1.
    """
    for wins, n in ((wins_a, n_a), (wins_b, n_b)):
        if n <= 0 or not 0 <= wins <= n:
            raise ValueError(f"expected 0 <= wins <= n and n >= 1, not {wins}/{n}")
    rate_a, rate_b = wins_a / n_a, wins_b / n_b
    pooled = (wins_a + wins_b) / (n_a + n_b)
    spread = math.sqrt(pooled * (1 - pooled) * (1 / n_a + 1 / n_b))
    z = (rate_a - rate_b) / spread if spread else 0.0
    h = 2 * math.asin(math.sqrt(rate_a)) - 2 * math.asin(math.sqrt(rate_b))
    return ZTest(z, math.erfc(abs(z) / math.sqrt(2)), h)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by linear interpolation between closest ranks
    (Hyndman and Fan's type 7, numpy's default): rank (n - 1) q / 100 of the sorted
    values, interpolated between its two neighbours."""
    if not values:
        raise ValueError("percentile of no values")
    if not 0 <= q <= 100:
        raise ValueError(f"q must be within 0..100, not {q}")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def trimmed_mean(values: Sequence[float], proportion: float = 0.1) -> float:
    """The mean after cutting ``floor(proportion * n)`` values from each end of the
    sorted values (scipy's ``trim_mean`` convention); ``proportion`` is below 0.5."""
    if not values:
        raise ValueError("trimmed mean of no values")
    if not 0 <= proportion < 0.5:
        raise ValueError(f"proportion must be within [0, 0.5), not {proportion}")
    cut = math.floor(proportion * len(values))
    kept = sorted(values)[cut : len(values) - cut]
    return sum(kept) / len(kept)


def npmi(joint: int, count_x: int, count_y: int, total: int) -> float:
    """Normalized pointwise mutual information of x and y from counts over ``total``
    observations: log(p(x,y) / (p(x) p(y))) / -log p(x,y), within [-1, 1].

    Conventions: -1 when x and y never occur together (``joint`` 0); 1 when they occur
    together in every observation (p(x,y) = 1, where the formula is 0/0).
    """
    if not 0 <= joint <= min(count_x, count_y) or max(count_x, count_y) > total or total <= 0:
        raise ValueError(
            f"inconsistent counts: joint {joint}, x {count_x}, y {count_y}, total {total}"
        )
    if joint == 0:
        return -1.0
    if joint == total:
        return 1.0
    p_xy = joint / total
    return math.log(p_xy / (count_x / total * count_y / total)) / -math.log(p_xy)


def npmi_table(observations: Iterable[tuple[str, Iterable[str]]]) -> dict[tuple[str, str], float]:
    """NPMI of every (x, y) pair seen, from observations of one x and a set of ys each
    (e.g. a failing step's action and its unmet predicates); pairs never seen together
    score -1."""
    observations = [(x, set(ys)) for x, ys in observations]
    xs = Counter(x for x, _ in observations)
    ys = Counter(y for _, seen in observations for y in seen)
    joint = Counter((x, y) for x, seen in observations for y in seen)
    return {
        (x, y): npmi(joint[x, y], xs[x], ys[y], len(observations))
        for x in sorted(xs)
        for y in sorted(ys)
    }
