"""The formalization study's tables, records in and markdown out: the final candidates'
metrics by group, the repair curve (the candidate kept after each iteration) and its
plot, and Table 3 beside the paper's figures."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from ...formalizer.problems import METRICS, MODEL_ERROR
from ...results import Record
from ...study import (
    markdown_table,
    model_errors,
    save_success_plot,
    show_success_plot,
    success_cell,
    with_published,
)
from ...study.runs import single_run
from ..base import paper_heading
from . import NL_PDDL

Metrics = dict[str, Any]  # one candidate's metrics, by name
RATES = ("svr", "psr", "cr", "cr_matched", "eq", "goal_eq")
MEANS = ("tsr", "tsr_matched")  # the rest are rates
LABELS = {
    "svr": "SVR",
    "psr": "PSR",
    "tsr": "TSR",
    "cr": "CR",
    "tsr_matched": "TSR (names matched)",
    "cr_matched": "CR (names matched)",
    "eq": "EQ",
    "goal_eq": "goal EQ",
}


def final_metrics(record: Record) -> Metrics:
    """The kept candidate's metrics; a failure in every rate after a model error."""
    return MODEL_ERROR if record.get("error") else record["metrics"]


def metrics_at(record: dict, iteration: int) -> Metrics:
    """The metrics of the candidate kept after ``iteration`` (0: the one shot)."""
    return MODEL_ERROR if record.get("error") else record["by_iteration"][iteration]


def rate_cell(values: list[Any]) -> str:
    """``7/9 [45%, 94%]`` over the values that are not None."""
    counted = [v for v in values if v is not None]
    return success_cell(sum(counted), len(counted)) if counted else "-"


def mean_cell(values: list[float]) -> str:
    """The mean of fractions in percent, with a normal-approximation 95% interval
    clipped to [0, 100] (a percentage, as the paper's figure beside it is)."""
    if not values:
        return "-"
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else 0.0
    return f"{mean:.1%} [{max(0.0, mean - half):.0%}, {min(1.0, mean + half):.0%}]"


def metric_cell(metrics: list[Metrics], name: str) -> str:
    values = [m[name] for m in metrics]
    return mean_cell(values) if name in MEANS else rate_cell(values)


def group_table(records: list[Record], fields: tuple[str, ...]) -> str:
    """One row per value of ``fields``: the final candidates' metrics over every
    scheduled problem, model errors, repairs and iterations (over the problems played)."""
    groups: dict[tuple, list[Record]] = {}
    for record in records:
        groups.setdefault(tuple(record.get(f) for f in fields), []).append(record)
    rows = []
    for key, group in groups.items():
        played = [r for r in group if not r.get("error")]
        repairs = f"{statistics.fmean(r['iterations'] for r in played):.2f}" if played else "n/a"
        rows.append(
            [
                *("-" if v is None else v for v in key),
                len(group),
                model_errors(group),
                *(metric_cell([final_metrics(r) for r in group], m) for m in METRICS),
                sum(r["repaired_at"] is not None for r in played),
                repairs,
            ]
        )
    return markdown_table(
        [
            *fields,
            "problems",
            "model errors",
            *(LABELS[m] for m in METRICS),
            "repaired",
            "mean repairs",
        ],
        rows,
    )


def curve_table(records: list[Record], iterations: int) -> str:
    """The metrics of the candidate kept after each iteration, over every problem."""
    rows = [
        [t, *(metric_cell([metrics_at(r, t) for r in records], m) for m in METRICS)]
        for t in range(iterations + 1)
    ]
    return markdown_table(["iteration", *(LABELS[m] for m in METRICS)], rows)


def curve_plot(records: list[Record], iterations: int, path: Path, show: bool = True) -> None:
    series = {
        LABELS[name]: [
            (
                str(t),
                sum(metrics_at(r, t)[name] or 0 for r in records),
                sum(metrics_at(r, t)[name] is not None for r in records),
            )
            for t in range(iterations + 1)
        ]
        for name in RATES
    }
    (show_success_plot if show else save_success_plot)(
        series,
        path,
        "iteration (repairs made)",
        "rate",
        ordered=True,
        episodes=len(records),
        title="The repair curve: the candidate kept after each iteration, "
        f"{len(records)} problems, "
        + ", ".join(sorted({str((r.get("provenance") or {}).get("model")) for r in records})),
    )


def paper_table(records: list[Record]) -> str:
    """Table 3's layout over the records of one run, headed by its model and the paper's:
    Baseline (the one-shot candidates) and Planner-in-the-loop (the final ones) by SVR,
    PSR, TSR and CR over every scheduled problem, the paper's figure beside each, then n
    and the model errors."""
    [table] = NL_PDDL.tables
    records = single_run(records)
    by_row = {
        "Baseline": [metrics_at(r, 0) for r in records],
        "Planner-in-the-loop": [final_metrics(r) for r in records],
    }
    rows = []
    for row in table.rows:
        cells = []
        for column in table.columns:
            cell = metric_cell(by_row[row], column.lower())
            cells.append(with_published(cell, table.published.get((row, column))))
        rows.append([row, *cells, len(records), model_errors(records)])
    return f"{paper_heading(table, records)}\n\n" + markdown_table(
        ["", *table.columns, "n", "model errors"], rows
    )
