"""PNGs of results (matplotlib, the ``plot`` extra)."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..stats import wilson_interval

Point = tuple[str, int, int]  # (x label, wins, episodes)


def save_success_plot(series: Mapping[str, Sequence[Point]], path: Path | str,
                      xlabel: str, ylabel: str = "success rate") -> bool:
    """A rate (``ylabel``, success by default) against a categorical x, one line per
    series (name -> points), with 95% Wilson error bars; False (and no file) without
    matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    xs = list(dict.fromkeys(label for points in series.values() for label, _, _ in points))
    figure, axes = plt.subplots(figsize=(max(5.0, 1.0 + 0.7 * len(xs)), 3.5))
    for name, points in series.items():
        rates, below, above = [], [], []
        for _, wins, n in points:
            low, high = wilson_interval(wins, n)
            rate = wins / n if n else 0.0
            rates.append(rate)
            below.append(max(0.0, rate - low))
            above.append(max(0.0, high - rate))
        axes.errorbar([xs.index(label) for label, _, _ in points], rates, yerr=[below, above],
                      fmt="o-", capsize=4, label=name)
    long = max(map(len, xs), default=0) > 6
    axes.set_xticks(range(len(xs)), xs, rotation=30 if long else 0,
                    ha="right" if long else "center")
    axes.set_xlabel(xlabel)
    axes.set_ylabel(f"{ylabel} (95% Wilson)")
    axes.set_ylim(-0.02, 1.02)
    if len(series) > 1:
        axes.legend(loc="lower center", bbox_to_anchor=(0.5, 1.02), fontsize="small",
                    frameon=False)
    figure.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(figure)
    return True


def show_success_plot(series: Mapping[str, Sequence[Point]], path: Path | str,
                      xlabel: str, ylabel: str = "success rate") -> None:
    """:func:`save_success_plot`, then say where it is (stdout) or how to get one
    (stderr)."""
    if save_success_plot(series, path, xlabel, ylabel):
        print(f"\nplot: {path}")
    else:
        print("\nno plot: install matplotlib (pip install 'planloop[plot]')", file=sys.stderr)
