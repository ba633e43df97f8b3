"""Fig. 2 (IV-B), records in: each instance's outcome under every approach, as a PNG over
every run given (instances in the paper's order across, approaches down, the outcome by
colour) and, per run, a Markdown table of the instances solved in each difficulty block
beside the counts the paper's text and Table I state."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path

from ...results import Record
from ...study import markdown_table, with_published
from ...study.runs import run_key, single_run
from ..base import paper_heading
from . import BLOCKS, CONDITIONS, FIGURE_2, ROWS
from .tables import counted, outcome, plan_length, samples

COLOURS = {  # Okabe-Ito: told apart with most colour vision
    "Solved": "#009E73",
    "Timeout": "#E69F00",
    "Early exit": "#56B4E9",
    "model error": "#D55E00",
    "other": "#999999",
    "not run": "#FFFFFF",
}
LEGEND = {
    "Solved": "Solved",
    "Timeout": "Timeout",
    "Early exit": "Early exit",
    "model error": "model error",
    "other": "other failure",
    "not run": "not run",
}
ANNOTATED = 8  # at most this many instances: each cell says its plan length, samples or calls
PNG_NOTE = "Drawn over every run in the folder: {name} beside this file."


def figure_2_table(records: list[Record], png: str) -> str:
    """Per difficulty block, the instances each approach solved (``k/n (p%)``) over one
    run's records, beside the paper's counts, and where the PNG ``png`` is."""
    records = single_run(records)
    rows = []
    for index, block in enumerate(BLOCKS):
        cells = [block]
        for condition in CONDITIONS:
            group = [
                r
                for r in records
                if r["condition"] == condition
                and r.get("paper_instance") is not None
                and r["paper_instance"] // 10 == index
            ]
            won = sum(outcome(r) == "Solved" for r in group)
            value = f"{won}/{len(group)} ({won / len(group):.0%})" if group else "-"
            cells.append(with_published(value, FIGURE_2.published.get((block, ROWS[condition]))))
        rows.append(cells)
    others = sum(r.get("paper_instance") is None for r in records)
    return (
        f"{paper_heading(FIGURE_2, records)}\n\n"
        + markdown_table(["Block", *FIGURE_2.columns], rows)
        + "\n\nSolved: a plan the environment accepted within the budget, of the "
        "instances of the block that ran (the paper's places, ten to a block); the "
        "paper's: both Fast Downward configurations as Table I counts them, the LLM "
        "approaches where IV-B states a block's rate."
        + (f" {others} episodes of instances not the paper's are in no block." if others else "")
        + f"\n\n{PNG_NOTE.format(name=png)}"
    )


def _column(record: Record) -> tuple[bool, int, int]:
    place = record.get("paper_instance")
    return place is None, record["instance"] if place is None else place, record["instance"]


def _tick(column: tuple[bool, int, int]) -> str:
    other, number, _ = column
    return f"#{number}" if other else str(number)


def _note(record: Record) -> str:
    """A cell's words: its plan length when solved, and the direct baseline's samples
    or the agentic loop's model calls."""
    lines = [counted(plan_length(record), "action")] if outcome(record) == "Solved" else []
    calls = (record.get("details") or {}).get("model_calls")
    if record["condition"] == "direct":
        lines.append(counted(samples(record), "sample"))
    elif record["condition"] == "agentic" and calls is not None:
        lines.append(counted(calls, "model call"))
    return "\n".join(lines)


def save_figure_2(runs: Sequence[list[Record]], path: Path) -> bool:
    """Fig. 2 over ``runs`` (each one run's records) saved to ``path``: a row per
    approach of each run, a column per instance; False (and no file) without
    matplotlib or records."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.colors import ListedColormap
        from matplotlib.patches import Patch
    except ImportError:
        return False
    records = [r for run in runs for r in run]
    if not records:
        return False
    columns = sorted({_column(r) for r in records})
    rows = [
        (run, condition)
        for run in runs
        for condition in CONDITIONS
        if any(r["condition"] == condition for r in run)
    ]
    several = len(runs) > 1
    kinds = list(COLOURS)
    grid = [[kinds.index("not run")] * len(columns) for _ in rows]
    notes: dict[tuple[int, int], str] = {}
    for y, (run, condition) in enumerate(rows):
        for record in run:
            if record["condition"] == condition:
                x = columns.index(_column(record))
                grid[y][x] = kinds.index(outcome(record))
                notes[y, x] = _note(record)
    labels = [
        ROWS[c] + (f"\n{textwrap.shorten(run_key(run[0]).spec, 40)}" if several else "")
        for run, c in rows
    ]
    annotated = len(columns) <= ANNOTATED
    width = min(16.0, max(6.5, 2.5 + (1.0 if annotated else 0.13) * len(columns)))
    height = 2.2 + (0.55 if not several else 0.75) * len(rows)
    figure, axes = plt.subplots(figsize=(width, height), layout="constrained")
    axes.pcolormesh(
        grid,
        cmap=ListedColormap(list(COLOURS.values())),
        vmin=-0.5,
        vmax=len(kinds) - 0.5,
        edgecolors="white",
        linewidth=0.5 if len(columns) <= 60 else 0.2,
    )
    axes.set_yticks([y + 0.5 for y in range(len(rows))], labels)
    axes.invert_yaxis()  # the approaches top to bottom in Table II's order
    step = 1 if len(columns) <= 30 else 10
    shown = [x for x, c in enumerate(columns) if c[0] or c[1] % step == 0 or step == 1]
    axes.set_xticks([x + 0.5 for x in shown], [_tick(columns[x]) for x in shown])
    for x in range(1, len(columns)):  # a line between difficulty blocks
        before, after = columns[x - 1], columns[x]
        if not after[0] and before[1] // 10 != after[1] // 10:
            axes.axvline(x, color="black", linewidth=1.0)
    if annotated:
        for (y, x), text in notes.items():
            axes.text(x + 0.5, y + 0.5, text, ha="center", va="center", fontsize="small")
    axes.set_xlabel(
        "instance (place in the paper's order"
        + ("; #: not the paper's" if any(c[0] for c in columns) else "")
        + (")" if len(columns) < 2 else "; | between blocks of 10)")
    )
    axes.set_ylabel("approach")
    model = f", {len(runs)} runs" if several else f", {run_key(records[0]).label}"
    n = f"n\u00a0=\u00a0{len(columns)}\u00a0instance{'s' if len(columns) != 1 else ''}"
    axes.set_title(
        textwrap.fill(
            f"Fig. 2: per-instance outcome of every approach ({n}{model})", int(width * 8)
        )
    )
    seen = sorted({kinds[k] for line in grid for k in line}, key=kinds.index)
    figure.legend(
        handles=[Patch(facecolor=COLOURS[k], edgecolor="black", label=LEGEND[k]) for k in seen],
        loc="outside lower center",
        ncols=len(seen),
        frameon=False,
        title="outcome",
    )
    figure.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(figure)
    return True
