"""The agentic study's tables, records in and markdown out: Table II (each episode
classified as Solved, Timeout or Early exit), Tables I and III (plan lengths by
difficulty block), the cost of each approach, and the study's report."""

from __future__ import annotations

import statistics
from collections.abc import Iterable

from ...results import Record
from ...study import (
    markdown_table,
    model_errors,
    model_failures,
    success_cell,
    tally,
    with_published,
)
from ...study.runs import single_run
from ..base import PaperTable, paper_heading
from . import (
    AGENTIC,
    COLUMNS,
    CONDITIONS,
    COST,
    PAPER_INSTANCES,
    PLANNER_CONDITIONS,
    ROWS,
    TABLE_I,
    TABLE_II,
    TABLE_III,
)

OUTCOMES = {
    "timeout": "Timeout",
    "budget": "Timeout",
    "unsolvable": "Early exit",
    "finished": "Early exit",
}  # a policy's stop -> Table II's column


def outcome(record: Record) -> str:
    """Table II's column of an episode (Solved, Timeout, Early exit), ``model error`` for
    a failed model call, or ``other``."""
    if record.get("error"):
        return "model error"
    if record.get("won"):
        return "Solved"
    return OUTCOMES.get(str(record.get("stop")), "other")


def by_condition(records: list[Record], conditions: list[str]) -> dict[str, list[Record]]:
    """Every scheduled record of each condition (model errors too), in the given order."""
    return {c: [r for r in records if r["condition"] == c] for c in conditions}


def beside(row: str, column: str, value: str) -> str:
    """``value`` with the paper's figure of the cell beside it, when it printed one."""
    return with_published(value, TABLE_II.published.get((row, column)))


def table_ii(groups: dict[str, list[Record]]) -> str:
    """Table II's rows and columns over the records of one run (by condition), headed by
    its model and the paper's, reproduced beside the paper's figures, with n, success
    and its Wilson interval, and model errors."""
    records = single_run(r for group in groups.values() for r in group)
    rows = []
    for condition, group in groups.items():
        row, counts = ROWS[condition], [outcome(r) for r in group]
        solved, n = counts.count("Solved"), len(group)
        cells = [
            f"{solved} ({solved / n:.1%})" if n else "0",
            *(str(counts.count(c)) for c in COLUMNS[1:]),
        ]
        rows.append(
            [
                row,
                n,
                *(beside(row, c, v) for c, v in zip(COLUMNS, cells, strict=True)),
                success_cell(*tally(group)),
                model_errors(group),
            ]
        )
    return (
        f"{paper_heading(TABLE_II, records)}\n\n"
        + markdown_table(["Approach", "n", *COLUMNS, "success [95% Wilson]", "model errors"], rows)
        + f"\n\n{instances_note(records)}"
    )


def instances_note(records: list[Record]) -> str:
    """How many instances ran, and how many of them are the paper's (by checksum)."""
    ran = {r["instance"] for r in records}
    places = sorted({r["paper_instance"] for r in records if r.get("paper_instance") is not None})
    named = ", ".join(f"instance-{place + 1}" for place in places)
    others = len(ran) - len(places)
    return (
        f"Instances: {len(ran)} ran (the paper ran {PAPER_INSTANCES}); by their SHA-256, "
        f"{len(places)} are among the paper's IPC-2000 instances"
        + (f" ({named})" if 0 < len(places) <= 12 else "")
        + (f", {others} not (in no difficulty block)" if others > 0 else "")
        + "."
    )


def plan_length(record: Record) -> int:
    """The actions of the plan an episode ended with (those after its last restart)."""
    return len(record["actions"]) - (record.get("restarted_after") or [0])[-1]


def counted(count: int, word: str) -> str:
    """``1 sample``, ``15 samples``."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def samples(record: Record) -> int:
    """The direct baseline's samples in an episode: its replies read and validated, each
    from a fresh context (``details["attempts"]``; a reply after the budget is none)."""
    return len((record.get("details") or {}).get("attempts") or [])


def instance_label(record: Record) -> str:
    """``101 (instance-102)``: the instance's place in the paper's order and its file;
    ``#3 (not the paper's)`` for an instance that is not one of its 102."""
    place = record.get("paper_instance")
    if place is None:
        return f"#{record['instance']} (not the paper's)"
    return f"{place} (instance-{place + 1})"


def lengths_table(table: PaperTable, conditions: tuple[str, ...], records: list[Record]) -> str:
    """Table I or III over one run's records: per difficulty block, the instances every
    one of ``conditions`` solved and the mean plan length of each, beside the paper's
    figures (Table I adds lama-first's mean minus seq-sat-lama-2011's)."""
    records = single_run(records)
    solved = {
        c: {
            (r["paper_instance"], r["trial"]): plan_length(r)
            for r in records
            if r["condition"] == c
            and outcome(r) == "Solved"
            and r.get("paper_instance") is not None
        }
        for c in conditions
    }
    common = set.intersection(*(set(lengths) for lengths in solved.values()))
    rows = []
    for index, block in enumerate(table.rows):
        keys = [key for key in common if key[0] // 10 == index]
        means: list[float | None] = [
            statistics.mean(solved[c][k] for k in keys) if keys else None for c in conditions
        ]
        if table is TABLE_I:
            lama, seq = means[0], means[1]
            means.append(lama - seq if lama is not None and seq is not None else None)
        cells = [str(len(keys)), *("-" if m is None else f"{m:.1f}" for m in means)]
        rows.append(
            [
                block,
                *(
                    with_published(cell, table.published.get((block, column)))
                    for column, cell in zip(table.columns, cells, strict=True)
                ),
            ]
        )
    *others, last = (ROWS[c] for c in conditions)
    solvers = f"{', '.join(others)} and {last}"
    return (
        f"{paper_heading(table, records)}\n\n"
        + markdown_table(["Block", *table.columns], rows)
        + f"\n\nPlan length: the actions of the plan of an instance solved by {solvers}, "
        f"mean per block; blocks: the instances' places in the paper's order, ten to a "
        f"block; a cell without the paper's figure is one it printed none for. "
        f"{instances_note(records)}"
    )


def table_i(records: list[Record]) -> str:
    """Table I: Fast Downward's plan lengths by difficulty block."""
    return lengths_table(TABLE_I, PLANNER_CONDITIONS, records)


def table_iii(records: list[Record]) -> str:
    """Table III: every approach's plan lengths on the co-solved instances by block."""
    return lengths_table(TABLE_III, CONDITIONS, records)


def paper_tables(records: list[Record]) -> dict[str, str]:
    """The paper's Tables I, II and III over one run's records."""
    return {
        "table-i": table_i(records),
        "table-ii": table_ii(by_condition(records, list(CONDITIONS))),
        "table-iii": table_iii(records),
    }


def other_failures(groups: dict[str, list[Record]]) -> str:
    """A paragraph naming the failures that are in none of Table II's columns."""
    counts = {
        ROWS[c]: [r.get("stop") for r in g if outcome(r) == "other"] for c, g in groups.items()
    }
    shown = "; ".join(
        f"{row}: {len(stops)} ({', '.join(sorted(map(str, set(stops))))})"
        for row, stops in counts.items()
        if stops
    )
    return f"\n\nFailures in none of the columns (the stop recorded): {shown}" if shown else ""


def cost_table(groups: dict[str, list[Record]]) -> str:
    """Seconds, model calls and tokens per instance, and tokens per solved instance (as
    the paper's IV-C counts them), the tokens beside the paper's figures."""
    rows = []
    for condition, group in groups.items():
        usage = [r.get("usage") or {} for r in group]
        tokens = sum(u.get("prompt_tokens", 0) + u.get("completion_tokens", 0) for u in usage)
        solved = sum(outcome(r) == "Solved" for r in group)
        model, row = condition not in PLANNER_CONDITIONS, ROWS[condition]
        per = {
            "tokens per instance": f"{tokens / len(group):,.0f}" if model and group else "-",
            "tokens per solved instance": f"{tokens / solved:,.0f}" if model and solved else "-",
        }
        rows.append(
            [
                row,
                _mean(r.get("seconds", 0.0) for r in group),
                _mean(u.get("calls", 0) for u in usage) if model else "-",
                *(with_published(v, COST.published.get((row, c))) for c, v in per.items()),
            ]
        )
    return markdown_table(
        [
            "Approach",
            "seconds per instance",
            "model calls per instance",
            "tokens per instance",
            "tokens per solved instance",
        ],
        rows,
    )


def _mean(values: Iterable[float]) -> str:
    values = list(values)
    return f"{statistics.mean(values):.1f}" if values else "-"


def report(records: list[Record], conditions: list[str], caption: str, full: bool = True) -> str:
    """Table II over one run's records, with its notes, then (``full``) the cost and
    Tables I and III (when the run has their approaches)."""
    groups = by_condition(records, conditions)
    text = (
        f"{table_ii(groups)}{caption}{other_failures(groups)}{model_failures(records)}\n\n"
        f"n is every scheduled instance (the paper's: {AGENTIC.n}); an episode that "
        f"ended on a failed model call is a failure, also counted under model errors."
    )
    if not full:
        return text
    text += f"\n\n### Cost\n\n{cost_table(groups)}"
    if set(PLANNER_CONDITIONS) <= set(conditions):
        text += f"\n\n{table_i(records)}"
    return text + (f"\n\n{table_iii(records)}" if set(CONDITIONS) <= set(conditions) else "")
