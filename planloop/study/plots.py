"""PNGs of results (matplotlib, the ``plot`` extra): every plot has a title (with the
episodes behind it), axis labels with their units, the n behind each point and 95%
Wilson intervals as error bars; categorical conditions are points side by side, and only
an ordered x (a horizon, a budget, an iteration) joins its points with lines. The
layout is matplotlib's constrained one, the legend outside the axes below it and long
texts wrapped, so that no text overlaps another (see :func:`overlapping_texts`)."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..stats import wilson_interval

Point = tuple[str, int, int]  # (x label, wins, episodes)
RATE_UNITS = "(fraction; bars: 95% Wilson)"
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")  # a dodged series' own marker


def save_success_plot(
    series: Mapping[str, Sequence[Point]],
    path: Path | str,
    xlabel: str,
    ylabel: str = "success rate",
    *,
    title: str,
    ordered: bool = False,
    order: Sequence[str] | None = None,
    episodes: int | None = None,
    dodge: bool = False,
) -> bool:
    """:func:`success_figure` saved to ``path``; False (and no file) without
    matplotlib."""
    try:
        import matplotlib.pyplot as plt

        figure = success_figure(
            series,
            xlabel,
            ylabel,
            title=title,
            ordered=ordered,
            order=order,
            episodes=episodes,
            dodge=dodge,
        )
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
    episodes: int | None = None,
    dodge: bool = False,
):
    """A rate (``ylabel``) against x (``xlabel``, with its unit), one series per name
    (name -> points), each point labelled ``k/n`` with its 95% Wilson interval; lines
    join the points only when x is ``ordered``. ``order``: the x labels in order (by
    default as the series first name them). The title ends with the ``episodes`` behind
    the plot: by default the points' n summed, right when each episode is one point; a
    curve whose points count the same episodes again (each budget, step or iteration)
    gives its own. ``dodge``: the series side by side at each x even when ordered (so
    that equal curves stay apart), each with its own marker and its ``k/n`` written
    upright above its point. A matplotlib Figure (ImportError without matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = list(order or dict.fromkeys(label for points in series.values() for label, _, _ in points))
    width_inches = max(6.0, 1.0 + 0.8 * len(xs))
    labels = {name: textwrap.fill(name, max(40, int(width_inches * 14))) for name in series}
    longest = max(map(len, xs), default=0)
    turned = longest * 0.08 > 0.85 * width_inches / max(len(xs), 1)  # wider than its slot
    height_inches = (  # room for the axes, the turned x labels and the legend's lines
        3.4
        + (0.08 * longest if turned else 0.0)
        + (0.2 * sum(label.count("\n") + 1 for label in labels.values()) if len(series) > 1 else 0)
    )
    figure, axes = plt.subplots(figsize=(width_inches, height_inches), layout="constrained")
    width = 0.0 if (ordered and not dodge) or len(series) == 1 else min(0.6 / len(series), 0.2)
    for offset, (name, points) in enumerate(series.items()):
        shift = (offset - (len(series) - 1) / 2) * width
        x = [xs.index(label) + shift for label, _, _ in points]
        rates, below, above = _rates(points)
        axes.errorbar(
            x,
            rates,
            yerr=[below, above],
            fmt=(MARKERS[offset % len(MARKERS)] if dodge else "o") + ("-" if ordered else ""),
            capsize=4 if not dodge else 2,
            label=labels[name],
        )
        for xi, rate, (_, wins, n) in zip(x, rates, points, strict=True):
            axes.annotate(  # each series a line higher (or upright): they read apart
                f"{wins}/{n}",
                (xi, rate),
                textcoords="offset points",
                xytext=(0, 6) if dodge else (4, 4 + 9 * offset),
                fontsize="xx-small" if dodge else "x-small",
                rotation=90 if dodge else 0,
                ha="center" if dodge else "left",
            )
    axes.set_xticks(range(len(xs)), xs, rotation=90 if turned else 0)
    axes.set_xlim(-0.5, max(len(xs), 1) - 0.5)
    axes.set_xlabel(xlabel)
    room = 24  # characters a line of the y label may hold beside the axes (2 in tall)
    axes.set_ylabel(textwrap.fill(f"{ylabel} {RATE_UNITS}", room), fontsize="small")
    axes.set_ylim(-0.02, 1.3 if dodge else 1.08)
    if dodge:  # room above 1 for the upright labels, no tick past a rate's end
        axes.set_yticks([0.0, 0.2, 0.4, 0.6, 0.8, 1.0])
    if episodes is None:
        episodes = sum(n for points in series.values() for _, _, n in points)
    columns = max(20, int(width_inches * 11))  # characters a title line may hold
    axes.set_title(textwrap.fill(f"{title} (n = {episodes} episodes)", columns), fontsize="medium")
    if len(series) > 1:
        figure.legend(
            *axes.get_legend_handles_labels(),
            loc="outside lower center",
            fontsize="small",
            frameon=False,
            ncols=1,
        )
    return figure


def _drawn(figure):
    """Draw ``figure`` (on an Agg canvas if it was closed) and return its renderer."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if not isinstance(figure.canvas, FigureCanvasAgg):
        FigureCanvasAgg(figure)
    figure.canvas.draw()
    return figure.canvas.get_renderer()


def overlapping_texts(figure) -> list[tuple[str, str]]:
    """The pairs of a drawn figure's texts (titles, axis labels, the tick labels in view,
    legends, free texts) whose bounding boxes overlap; the ``k/n`` point labels
    (annotations) sit beside their points and are not counted."""
    from matplotlib.text import Annotation

    renderer = _drawn(figure)
    texts = list(figure.texts)
    for legend in figure.legends:
        texts += legend.get_texts()
    for axes in figure.axes:
        texts += [axes.title, axes.xaxis.label, axes.yaxis.label]
        texts += [text for text in axes.texts if not isinstance(text, Annotation)]
        texts += axes.get_legend().get_texts() if axes.get_legend() else []
        for axis in (axes.xaxis, axes.yaxis):
            low, high = sorted(axis.get_view_interval())
            texts += [
                tick.label1 for tick in axis.get_major_ticks() if low <= tick.get_loc() <= high
            ]
    texts = [text for text in texts if text.get_visible() and text.get_text().strip()]
    boxes = [(text.get_text(), text.get_window_extent(renderer)) for text in texts]
    return [
        (a, b)
        for i, (a, box_a) in enumerate(boxes)
        for b, box_b in boxes[i + 1 :]
        if box_a.overlaps(box_b)
    ]


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
    episodes: int | None = None,
    dodge: bool = False,
) -> None:
    """:func:`save_success_plot`, then say where it is (stdout) or how to get one
    (stderr)."""
    if save_success_plot(
        series, path, xlabel, ylabel, title=title, ordered=ordered, episodes=episodes, dodge=dodge
    ):
        print(f"\nplot: {path}")
    else:
        print("\nno plot: install matplotlib (pip install 'planloop[plot]')", file=sys.stderr)


def overflowing_labels(figure) -> list[str]:
    """The axis labels of a drawn figure longer than their axis."""
    renderer = _drawn(figure)
    overflowing = []
    for axes in figure.axes:
        frame = axes.get_window_extent(renderer)
        for label, room, size in (
            (axes.xaxis.label, frame.width, lambda box: box.width),
            (axes.yaxis.label, frame.height, lambda box: box.height),
        ):
            if label.get_text().strip() and size(label.get_window_extent(renderer)) > room:
                overflowing.append(label.get_text())
    return overflowing
