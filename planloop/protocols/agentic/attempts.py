"""IV-B's samples of the direct baseline, records in and Markdown out: the median number
of samples (replies read and validated, each from a fresh context) until a plan
validated or the budget ended, over the instances it solved, those it did not, and all."""

from __future__ import annotations

import statistics

from ...results import Record
from ...study import markdown_table, with_published
from ...study.runs import single_run
from ..base import paper_heading
from . import ATTEMPTS
from .tables import outcome, samples


def attempts_table(records: list[Record]) -> str:
    """The direct baseline's median samples (and their range) per instance over one
    run's records, solved, not solved (every other outcome, model errors too) and all,
    beside the paper's figures."""
    records = single_run(records)
    direct = [r for r in records if r["condition"] == "direct"]
    groups = {
        "solved": [r for r in direct if outcome(r) == "Solved"],
        "not solved": [r for r in direct if outcome(r) != "Solved"],
        "all": direct,
    }
    rows = []
    for name, group in groups.items():
        counts = [samples(r) for r in group]
        cells = [str(len(group)), f"{statistics.median(counts):g}" if counts else "-"]
        rows.append(
            [
                name,
                *(
                    with_published(cell, ATTEMPTS.published.get((name, column)))
                    for column, cell in zip(ATTEMPTS.columns, cells, strict=True)
                ),
                f"{min(counts)}–{max(counts)}" if counts else "-",
            ]
        )
    settings = ((records[0].get("provenance") or {}).get("settings") or {}) if records else {}
    cap = settings.get("max_attempts")
    capped = (
        f" Samples were capped at {cap} an instance (the paper: no cap), so no count exceeds {cap}."
        if cap is not None
        else ""
    )
    return (
        f"{paper_heading(ATTEMPTS, records)}\n\n"
        + markdown_table(["Direct LLM", *ATTEMPTS.columns, "range"], rows)
        + "\n\nSamples: the direct baseline's replies read as a plan and validated, each "
        "from a fresh context, until one validated or the budget ended (a reply that came "
        f"after the budget is not one); not solved: every other outcome.{capped}"
    )
