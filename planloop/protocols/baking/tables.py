"""The horizon study's tables, records in and markdown out: success by horizon and
problem, and the paper's table beside its figures."""

from __future__ import annotations

from collections.abc import Sequence

from ...results import Record
from ...stats import wilson_interval
from ...study import (
    markdown_table,
    model_errors,
    model_failures,
    success_cell,
    tally,
    with_published,
)
from ...study.runs import single_run
from ..base import paper_heading
from . import BAKING, OPEN, ROWS


def success_table(
    records: list[Record], horizons: Sequence[int | str], instances: Sequence[int]
) -> str:
    """Problems as columns, one row per horizon: wins/trials and the 95% Wilson interval."""
    rows = []
    for horizon in horizons:
        mine = [r for r in records if r["horizon"] == horizon]
        cells = [
            success_cell(*tally(r for r in mine if r["instance"] == instance))
            for instance in instances
        ]
        label = "open loop" if horizon == OPEN else f"H = {horizon}"
        rows.append([label, *cells, success_cell(*tally(mine)), model_errors(mine)])
    return markdown_table(
        ["horizon", *(f"problem {i}" for i in instances), "all", "model errors"], rows
    ) + model_failures(records)


def paper_table(records: list[Record], instances: Sequence[int]) -> str:
    """The study's table over the records of one run, headed by its model and the
    paper's: open loop, H = 5 and H = 1 by problem, ``k/n (pct) [95% Wilson]`` beside
    the paper's figure, and the model errors of each row."""
    [layout] = BAKING.tables
    records, rows = single_run(records), []
    for horizon, row in ROWS.items():
        mine = [r for r in records if r["horizon"] == horizon]
        cells = []
        for instance, column in zip(instances, layout.columns, strict=True):
            wins, n = tally(r for r in mine if r["instance"] == instance)
            low, high = wilson_interval(wins, n)
            cell = f"{wins}/{n} ({wins / n:.0%}) [{low:.0%}, {high:.0%}]" if n else "0/0"
            cells.append(with_published(cell, layout.published.get((row, column))))
        rows.append([row, *cells, model_errors(mine)])
    columns = layout.columns[: len(rows[0]) - 2]
    return f"{paper_heading(layout, records)}\n\n" + markdown_table(
        ["", *columns, "model errors"], rows
    )
