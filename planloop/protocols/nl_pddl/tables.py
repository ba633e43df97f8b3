"""The formalization study's tables, records in and markdown out: the final candidates'
metrics by group, the repair curve (the candidate kept after each iteration) and its
plot, direct plans against the loop's on the reference problems, and Tables 3, 2 and 5
beside the paper's figures."""

from __future__ import annotations

import statistics
from collections.abc import Mapping
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
from ..base import PaperTable, paper_heading
from . import DIRECT, LOOP, TABLE_2, TABLE_2_DOMAINS, TABLE_3, TABLE_5
from .sets import PLANBENCH

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


def is_direct(record: Record) -> bool:
    """A record of direct plan generation (:mod:`.direct`), not of the loop."""
    return record.get("approach") == "direct"


def loop_records(records: list[Record]) -> list[Record]:
    """The records of the planner-in-the-loop."""
    return [r for r in records if not is_direct(r)]


def plan_valid(record: Record) -> int | None:
    """1 when the record's plan (the model's own, or the kept candidate's planner's)
    reaches the goal of the reference problem; 0 after a model error; None for a record
    written before planloop validated it."""
    if record.get("error"):
        return 0
    valid = record.get("plan_valid")
    return None if valid is None else int(valid)


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
    """``repair.png``: each rate of the candidate kept after each iteration, the six
    series side by side at each iteration (equal curves stay apart), each point's
    ``k/n`` upright above it; a point with no n (PSR where no candidate parses) is left
    out, and its legend says so."""
    series = {
        LABELS[name] + (" (of the parsed; no point where none parses)" if name == "psr" else ""): [
            (str(t), wins, n)
            for t in range(iterations + 1)
            for wins, n in [
                (
                    sum(metrics_at(r, t)[name] or 0 for r in records),
                    sum(metrics_at(r, t)[name] is not None for r in records),
                )
            ]
            if n
        ]
        for name in RATES
    }
    models = ", ".join(sorted({str((r.get("provenance") or {}).get("model")) for r in records}))
    (show_success_plot if show else save_success_plot)(
        series,
        path,
        "iteration (repairs made)",
        "rate",
        ordered=True,
        dodge=True,
        episodes=len(records),
        title=f"The repair curve (planloop's; not a figure of the paper): the candidate kept "
        f"after each iteration, {models}",
    )


def paper_table(records: list[Record], table: PaperTable = TABLE_3) -> str:
    """Table 3's layout (or Table 5's, ``table``) over the loop's records of one run,
    headed by its model and the paper's: Baseline (the one-shot candidates) and
    Planner-in-the-loop (the kept ones) by SVR, PSR, TSR and CR over every scheduled
    problem, the paper's figure beside each, then n and the model errors."""
    records = loop_records(single_run(records))
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


def plans_table(records: list[Record], rows: Mapping[str, str | None]) -> str:
    """One row per domain (``rows``: the row's name -> its domain, None for one planloop
    does not have): the plans validated on the reference problem, direct and from the
    loop, over every scheduled problem, with each approach's n and model errors."""
    body = []
    for name, domain in rows.items():
        mine = [r for r in records if domain is not None and r.get("domain") == domain]
        direct, loop = [r for r in mine if is_direct(r)], loop_records(mine)
        cells = [
            with_published(
                rate_cell([plan_valid(r) for r in group]), TABLE_2.published.get((name, column))
            )
            for column, group in ((DIRECT, direct), (LOOP, loop))
        ]
        body.append(
            [name, *cells, len(direct), len(loop), model_errors(direct), model_errors(loop)]
        )
    return markdown_table(
        ["", DIRECT, LOOP, "n direct", "n loop", "model errors (direct)", "model errors (loop)"],
        body,
    )


def table_2(records: list[Record]) -> str:
    """Table 2 over one run: Logistics, Zenotravel (none in planloop: the paper's figures
    alone) and Blocksworld (PlanBench's)."""
    records = single_run(records)
    missing = [name for name, domain in TABLE_2_DOMAINS.items() if domain is None]
    return (
        f"{paper_heading(TABLE_2, records)}\n\n{plans_table(records, TABLE_2_DOMAINS)}\n\n"
        f"{', '.join(missing)}: planloop has no such problems (the paper's figures alone); "
        "Blocksworld: PlanBench's instances in plain names (the paper's in Mystery's)."
    )


def table_5(records: list[Record]) -> str:
    """Table 5 over one run: Table 3's layout on PlanBench's Blocksworld."""
    return paper_table([r for r in records if r.get("domain") == PLANBENCH], TABLE_5)


def paper_tables(records: list[Record]) -> dict[str, str]:
    """Tables 3, 2 and 5 of one run, each that has records: Table 3 over the problems
    other than PlanBench's, Table 2 over those planned directly too, Table 5 over
    PlanBench's."""
    loop = loop_records(records)
    tested = [r for r in loop if r.get("domain") != PLANBENCH]
    tables = {"table-3": paper_table(tested)} if tested else {}
    if any(is_direct(r) for r in records):
        tables["table-2"] = table_2(records)
    if len(tested) < len(loop):
        tables["table-5"] = table_5(records)
    return tables
