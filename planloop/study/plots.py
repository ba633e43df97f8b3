"""PNGs of results (matplotlib, the ``plot`` extra): every plot has a title, axis labels
with their units, the n behind each point and 95% Wilson intervals as error bars;
categorical conditions are points side by side, and only an ordered x (a horizon, a
budget, an iteration) joins its points with lines."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..stats import wilson_interval

Point = tuple[str, int, int]  # (x label, wins, episodes)
RATE_UNITS = "(fraction; bars: 95% Wilson)"


def save_success_plot(
    series: Mapping[str, Sequence[Point]],
    path: Path | str,
    xlabel: str,
    ylabel: str = "success rate",
    *,
    title: str,
    ordered: bool = False,
    order: Sequence[str] | None = None,
) -> bool:
    """:func:`success_figure` saved to ``path``; False (and no file) without
    matplotlib."""
    try:
        import matplotlib.pyplot as plt

        figure = success_figure(series, xlabel, ylabel, title=title, ordered=ordered, order=order)
    except ImportError:
        return False
    figure.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(figure)
    return True


def success_figure(
    series: Mapping[str, Sequence[Point]],
    xlabel: str,
    ylabel: str = "success rate",
    *,
    title: str,
    ordered: bool = False,
    order: Sequence[str] | None = None,
):
    """A rate (``ylabel``) against x (``xlabel``, with its unit), one series per name
    (name -> points), each point labelled ``k/n`` with its 95% Wilson interval; lines
    join the points only when x is ``ordered``. ``order``: the x labels in order (by
    default as the series first name them). A matplotlib Figure (ImportError without
    matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = list(order or dict.fromkeys(label for points in series.values() for label, _, _ in points))
    figure, axes = plt.subplots(figsize=(max(5.0, 1.0 + 0.8 * len(xs)), 3.8))
    width = 0.0 if ordered or len(series) == 1 else min(0.6 / len(series), 0.2)
    for offset, (name, points) in enumerate(series.items()):
        shift = (offset - (len(series) - 1) / 2) * width
        x = [xs.index(label) + shift for label, _, _ in points]
        rates, below, above = _rates(points)
        axes.errorbar(
            x, rates, yerr=[below, above], fmt="o-" if ordered else "o", capsize=4, label=name
        )
        for xi, rate, (_, wins, n) in zip(x, rates, points, strict=True):
            axes.annotate(
                f"{wins}/{n}",
                (xi, rate),
                textcoords="offset points",
                xytext=(4, 4),
                fontsize="x-small",
            )
    long = max(map(len, xs), default=0) > 6
    axes.set_xticks(
        range(len(xs)), xs, rotation=30 if long else 0, ha="right" if long else "center"
    )
    axes.set_xlim(-0.5, len(xs) - 0.5)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(f"{ylabel} {RATE_UNITS}")
    axes.set_ylim(-0.02, 1.08)
    axes.set_title(title)
    if len(series) > 1:
        axes.legend(
            loc="upper center",
            bbox_to_anchor=(0.5, -0.25 if long else -0.15),
            fontsize="small",
            frameon=False,
        )
    return figure


def _rates(points: Sequence[Point]) -> tuple[list[float], list[float], list[float]]:
    """Each point's rate and the distances down and up to its Wilson interval's ends."""
    rates, below, above = [], [], []
    for _, wins, n in points:
        low, high = wilson_interval(wins, n)
        rate = wins / n if n else 0.0
        rates.append(rate)
        below.append(max(0.0, rate - low))
        above.append(max(0.0, high - rate))
    return rates, below, above


def show_success_plot(
    series: Mapping[str, Sequence[Point]],
    path: Path | str,
    xlabel: str,
    ylabel: str = "success rate",
    *,
    title: str,
    ordered: bool = False,
) -> None:
    """:func:`save_success_plot`, then say where it is (stdout) or how to get one
    (stderr)."""
    if save_success_plot(series, path, xlabel, ylabel, title=title, ordered=ordered):
        print(f"\nplot: {path}")
    else:
        print("\nno plot: install matplotlib (pip install 'planloop[plot]')", file=sys.stderr)
