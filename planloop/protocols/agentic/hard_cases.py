"""IV-E's hard cases, records in and Markdown out: the instances both Fast Downward
configurations failed, which LLM approach solved each, and every approach's outcome on
each (plan length, the direct baseline's samples, the agentic loop's model calls)."""

from __future__ import annotations

from ...results import Record
from ...study import markdown_table, with_published
from ...study.runs import single_run
from ..base import paper_heading
from . import BLOCKS, CONDITIONS, HARD_CASES, PAPER_NAMED, PLANNER_CONDITIONS, ROWS
from .tables import counted, instance_label, outcome, plan_length, samples

Key = tuple[int, int]  # (instance, trial)
MAX_NAMED = 12  # instances named in a summary cell


def cell(record: Record | None) -> str:
    """An approach's outcome on one instance: ``Solved, 186 actions``, ``Timeout, 15
    samples``, ``Early exit, 40 model calls, 2 resets``; ``not run``."""
    if record is None:
        return "not run"
    parts = [outcome(record)]
    if parts[0] == "Solved":
        parts.append(counted(plan_length(record), "action"))
    if record["condition"] == "direct":
        parts.append(counted(samples(record), "sample"))
    elif record["condition"] == "agentic":
        details = record.get("details") or {}
        calls = details.get("model_calls", (record.get("usage") or {}).get("calls", 0))
        parts.append(counted(calls, "model call"))
        parts += [counted(record["restarts"], "reset")] if record.get("restarts") else []
    return ", ".join(parts)


def _short(record: Record) -> str:
    place = record.get("paper_instance")
    return f"#{record['instance']}" if place is None else str(place)


def _named(keys: list[Key], first: dict[Key, Record]) -> str:
    names = ", ".join(_short(first[k]) for k in keys)
    return f"{len(keys)} ({names})" if 0 < len(keys) <= MAX_NAMED else str(len(keys))


def _order(first: dict[Key, Record]):
    """Instances in the paper's order, then those that are not its own."""

    def place(key: Key) -> tuple[bool, int, Key]:
        found = first[key].get("paper_instance")
        return found is None, found or 0, key

    return place


def hard_cases_table(records: list[Record]) -> str:
    """Over one run's records: how many instances both Fast Downward configurations
    failed and which of them each LLM approach solved, beside IV-E's figures; then each
    such instance (the ones no approach solved among them) with its block, its objects
    (Blocksworld: its blocks) and every approach's outcome."""
    records = single_run(records)
    played = {(r["condition"], r["instance"], r["trial"]): r for r in records}
    first: dict[Key, Record] = {}
    for r in records:
        first.setdefault((r["instance"], r["trial"]), r)
    keys = sorted(first, key=_order(first))

    def solved(condition: str, key: Key) -> bool:
        found = played.get((condition, *key))
        return found is not None and outcome(found) == "Solved"

    ran = {r["condition"] for r in records}
    if not set(PLANNER_CONDITIONS) <= ran:
        return (
            f"{paper_heading(HARD_CASES, records)}\n\nThe hard cases need both Fast Downward "
            "configurations' runs; this run has "
            + (", ".join(ROWS[c] for c in CONDITIONS if c in ran) or "none")
            + "."
        )
    hard = [k for k in keys if not any(solved(c, k) for c in PLANNER_CONDITIONS)]
    direct, agentic = ([k for k in hard if solved(c, k)] for c in ("direct", "agentic"))
    groups = {
        HARD_CASES.rows[0]: hard,
        HARD_CASES.rows[1]: [k for k in direct if k in agentic],
        HARD_CASES.rows[2]: [k for k in agentic if k not in direct],
        HARD_CASES.rows[3]: [k for k in direct if k not in agentic],
        HARD_CASES.rows[4]: [k for k in hard if k not in direct and k not in agentic],
    }
    summary = markdown_table(
        ["Instances", "count (places)"],
        [
            [
                row,
                with_published(_named(group, first), HARD_CASES.published.get((row, "instances"))),
            ]
            for row, group in groups.items()
        ],
    )
    rows = []
    for key in hard:
        record, place = first[key], first[key].get("paper_instance")
        by = [ROWS[c] for c in ("direct", "agentic") if solved(c, key)]
        rows.append(
            [
                instance_label(record),
                "-" if place is None else BLOCKS[place // 10],
                record.get("objects") if record.get("objects") is not None else "-",
                *(cell(played.get((c, *key))) for c in CONDITIONS),
                " and ".join(by) or "no approach",
                PAPER_NAMED.get(place, "-") if place is not None else "-",
            ]
        )
    header = ["Instance", "block", "blocks", *(ROWS[c] for c in CONDITIONS), "solved by"]
    instances = (
        markdown_table([*header, "the paper says"], rows, align="l" * (len(header) + 1))
        if rows
        else "No instance: both Fast Downward configurations solved every one."
    )
    return (
        f"{paper_heading(HARD_CASES, records)}\n\n{summary}\n\n{instances}\n\n"
        "Instance: its place in the paper's order (0-based, as its blocks count; its "
        "numbers in IV-B and IV-E read so) and its file; blocks: the problem's objects; "
        "samples: the direct baseline's; the paper says: what IV-B and IV-E say of an "
        "instance they name (- : one they do not)."
    )
