"""Tables of results: success counts with their Wilson intervals, in Markdown."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..stats import wilson_interval
from .progress import episodes


def tally(records: Iterable[dict]) -> tuple[int, int]:
    """(won, episodes) over every scheduled episode recorded: one that ended on a failed
    model call (an ``error``) is in n and not won, as in the papers' denominators
    (:func:`model_errors` counts them for their own column)."""
    records = list(records)
    return sum(bool(r.get("won")) and not r.get("error") for r in records), len(records)


def model_errors(records: Iterable[dict]) -> int:
    """How many of the records ended on a failed model call."""
    return sum(bool(r.get("error")) for r in records)


def model_failures(records: Iterable[dict]) -> str:
    """A paragraph for the end of a table: how many episodes ended on a failed model
    call (counted as failures; a rerun plays them again) and the last one's reason; ""
    when none did."""
    errors = [r["error"] for r in records if r.get("error")]
    if not errors:
        return ""
    return (
        f"\n\n{episodes(len(errors))} ended on a failed model call: each counts as a "
        f"failure in n and in the model errors column; rerun to retry them. "
        f"The last: {errors[-1]}"
    )


def success_cell(wins: int, n: int) -> str:
    """``3/5 [23%, 88%]``: wins out of n and the 95% Wilson interval."""
    low, high = wilson_interval(wins, n)
    return f"{wins}/{n} [{low:.0%}, {high:.0%}]"


def with_published(value: str, published: str | None) -> str:
    """``value (paper: 86%)``: a reproduced cell with the paper's figure beside it, when
    the paper printed one."""
    return f"{value} (paper: {published})" if published else value


def markdown_table(
    header: Sequence[str], rows: Iterable[Sequence[object]], align: str | None = None
) -> str:
    """A Markdown table; ``align`` has one letter per column, ``l``, ``r`` or ``c``
    (default: the first column left, the others right)."""
    align = align or "l" + "r" * (len(header) - 1)
    if len(align) != len(header):
        raise ValueError(f"align {align!r} has {len(align)} letters for {len(header)} columns")
    rule = {"l": "---", "r": "---:", "c": ":---:"}
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(rule[a] for a in align) + "|"]
    for row in rows:
        if len(row) != len(header):
            raise ValueError(f"a row of {len(row)} cells under {len(header)} columns: {row!r}")
        lines.append("| " + " | ".join(str(cell) for cell in row) + " |")
    return "\n".join(lines)
