"""The Mystery paper's evaluation beyond Table 1, records in: Table 2 (the ablations
against the full pipeline, beside the differences its text prints), the pipeline's
runtime by the paper's subsets, and Figures 10 and 11 (the actions and the precondition
predicates of the simulated steps, successful against failed attempts) as tables and
PNGs."""

from __future__ import annotations

import statistics
import textwrap
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from ...results import Record
from ...stats import percentile, two_proportion_z_test, wilson_interval
from ...study import markdown_table, model_errors, tally, with_published
from ...study.runs import run_key, single_run
from ..agentic.tables import counted
from ..base import paper_heading
from . import ABLATIONS, FIGURES, MYSTERY, RUNTIME, SUBSETS, TABLE_2

OUTCOMES = ("successful", "failed")  # an attempted plan: valid, or not
SAME_RUNS = (
    "From the same runs as Table 1: the same instances and budget K, one run of every "
    "condition (the paper: 'the same evaluation protocol as our main results')."
)


def _rate(wins: int, n: int) -> str:
    return f"{wins}/{n} ({wins / n:.1%})" if n else "not run"


def table_2(records: list[Record]) -> str:
    """Table 2's rows over one run: each ablation's success and Wilson interval, its
    difference from the full pipeline (points) beside the paper's, the pooled
    two-proportion z-test, n and the model errors."""
    records = single_run(records)
    groups = {row: [r for r in records if r["condition"] == c] for c, row in ABLATIONS.items()}
    base_wins, base_n = tally(groups["full pipeline"])
    rows = []
    for row, group in groups.items():
        wins, n = tally(group)
        low, high = wilson_interval(wins, n)
        difference, z, p = "-", "-", "-"
        if row != "full pipeline" and n and base_n:
            test = two_proportion_z_test(wins, n, base_wins, base_n)
            difference = f"{100 * (wins / n - base_wins / base_n):+.1f} points"
            z, p = f"{test.z:.2f}", f"{test.p:.3g}"
        rows.append(
            [
                row,
                with_published(_rate(wins, n), TABLE_2.published.get((row, "success"))),
                f"[{low:.1%}, {high:.1%}]" if n else "-",
                with_published(difference, TABLE_2.published.get((row, "difference"))),
                z,
                p,
                n,
                model_errors(group),
            ]
        )
    header = ["", "success", "95% Wilson", "difference", "z", "p (two-sided)", "n"]
    return f"{paper_heading(TABLE_2, records)}\n\n{SAME_RUNS}\n\n" + markdown_table(
        [*header, "model errors"], rows
    )


def runtime_table(records: list[Record]) -> str:
    """The full pipeline's seconds an instance (p50, p90, mean) and success on each of
    the paper's subsets, by instance index, beside the paper's seconds."""
    records = single_run(records)
    pipeline = [r for r in records if r["condition"] == "pipeline"]
    rows = []
    for name, indices in SUBSETS.items():
        group = [r for r in pipeline if r.get("instance") in indices]
        seconds = [r["seconds"] for r in group]
        stats = (
            (percentile(seconds, 50), percentile(seconds, 90), statistics.mean(seconds))
            if seconds
            else (None, None, None)
        )
        rows.append(
            [
                name,
                len(group),
                _rate(*tally(group)),
                *(
                    with_published(
                        "-" if value is None else f"{value:.2f}",
                        RUNTIME.published.get((name, column)),
                    )
                    for value, column in zip(stats, RUNTIME.columns, strict=True)
                ),
            ]
        )
    return (
        f"{paper_heading(RUNTIME, records)}\n\nSubsets by `Mystery-BW-v0`'s instance index "
        "(PlanBench's 500, then its 3-block 100); the paper prints the subsets' p50 only.\n\n"
        + markdown_table(["subset", "n", "success", "seconds p50", "p90", "mean"], rows)
    )


def attempts(records: list[Record], field: str) -> dict[str, tuple[Counter[str], int, int]]:
    """The pipeline's attempted plans by outcome: the counts of ``field`` (``actions``
    or ``predicates``) over their simulated steps, the plans and that total."""
    plans = [p for r in records if r["condition"] == "pipeline" for p in r["plans"]]
    found = {}
    for outcome in OUTCOMES:
        chosen = [p for p in plans if (p["kind"] is None) == (outcome == "successful")]
        counts = Counter(x for p in chosen for x in p.get(field, []))
        found[outcome] = (counts, len(chosen), sum(counts.values()))
    return found


def figure_table(records: list[Record], number: int) -> str:
    """Figure ``number``'s bars over one run as a table: each action (10) or predicate
    (11) as a share of the simulated steps' entries, successful against failed."""
    field, x, caption = FIGURES[number]
    records = single_run(records)
    found = attempts(records, field)
    names = sorted({name for counts, _, _ in found.values() for name in counts})
    rows = [
        [
            name,
            *(
                f"{counts[name]} ({counts[name] / total:.1%})" if total else "-"
                for counts, _, total in found.values()
            ),
        ]
        for name in names
    ]
    unit = "step" if field == "actions" else "fact"
    header = [
        x,
        *(
            f"{o} attempts ({counted(found[o][1], 'plan')}, {counted(found[o][2], unit)})"
            for o in OUTCOMES
        ),
    ]
    [layout] = [t for t in MYSTERY.tables if t.title.startswith(f"Figure {number}:")]
    return (
        f"{paper_heading(layout, records)}\n\nThe full pipeline's attempted plans, every "
        f"{'step' if field == 'actions' else 'precondition fact tested'} the simulator "
        "played (a failed plan's to its failing step); the paper prints no figures for it."
        "\n\n" + (markdown_table(header, rows) if rows else "(no step simulated)")
    )


def save_figures(runs: Sequence[list[Record]], folder: Path, prefix: str) -> list[Path]:
    """``PREFIX-figure-10.png`` and ``-11.png`` in ``folder``: grouped bars, a pair per
    run (successful, failed); the paths written (none without matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    paths = []
    for number, (field, x, caption) in FIGURES.items():
        series = []
        for run in runs:
            label = f"{run_key(run[0]).label}: " if len(runs) > 1 else ""
            for outcome, (counts, plans, total) in attempts(run, field).items():
                series.append(
                    (f"{label}{outcome} attempts ({counted(plans, 'plan')})", counts, total)
                )
        names = sorted({name for _, counts, _ in series for name in counts})
        if not names:
            continue
        episodes = sum(1 for run in runs for r in run if r["condition"] == "pipeline")
        figure, axes = plt.subplots(
            figsize=(max(6.0, 1.2 + 0.7 * len(names) * max(1, len(series) / 2)), 4.2),
            layout="constrained",
        )
        width = 0.8 / len(series)
        for offset, (name, counts, total) in enumerate(series):
            shares = [counts[n] / total if total else 0.0 for n in names]
            xs = [i + (offset - (len(series) - 1) / 2) * width for i in range(len(names))]
            bars = axes.bar(xs, shares, width, label=name, color=_color(name, offset))
            axes.bar_label(bars, [str(counts[n]) for n in names], fontsize="x-small")
        axes.set_xticks(range(len(names)), names, rotation=45 if len(names) > 6 else 0)
        axes.set_xlabel(f"{x} (the names the model saw)")
        axes.set_ylabel(
            "share of the steps simulated"
            if field == "actions"
            else "share of the precondition facts tested",
            fontsize="small",
        )
        axes.set_ylim(0, 1.1 * max(1e-9, *(c[n] / t for _, c, t in series if t for n in names)))
        title = (
            f"Figure {number}: {caption}, successful against failed attempts (the full "
            f"pipeline, {run_key(runs[0][0]).label if len(runs) == 1 else f'{len(runs)} runs'}; "
            f"n = {counted(episodes, 'episode')}, {counted(_attempted(runs), 'attempt')})"
        )
        axes.set_title(textwrap.fill(title, 70), fontsize="medium")
        figure.legend(loc="outside lower center", fontsize="small", frameon=False)
        path = folder / f"{prefix}-figure-{number}.png"
        figure.savefig(path, dpi=120, bbox_inches="tight")
        plt.close(figure)
        paths.append(path)
    return paths


def _attempted(runs: Sequence[list[Record]]) -> int:
    return sum(len(r["plans"]) for run in runs for r in run if r["condition"] == "pipeline")


def _color(name: str, offset: int) -> str:
    """Successful attempts green, failed red (darker shades for later runs)."""
    shades = ("#2ca02c", "#1b6b1b") if "successful" in name else ("#d62728", "#8c1a1a")
    return shades[(offset // 2) % 2]
