"""Two of the paper's results over the main table's runs, records in: the average steps
of won episodes (a table per run) and the model-scale comparison (one table over every
run in the folder, a column per model)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from ...study import markdown_table, success_cell
from ...study.runs import run_caption
from .protocol import PDDLEGO_PLUS
from .tables import paper_rows

POLICIES = ("PDDLego+", "PlanGen")


def _steps(record: dict) -> int:
    """An episode's steps as the authors count them: plan cycles (PlanGen: calls naming a
    command), one per entry of their trial record."""
    tries = (record.get("details") or {}).get("tries")
    return len(tries) if tries is not None else int(record.get("rounds") or 0)


def steps_cell(group: list[dict]) -> str:
    """``4.2 steps, 9.0 commands (5 won)`` over the won episodes of a cell; ``- (0
    won)`` when none won."""
    won = [r for r in group if r.get("won") and not r.get("error")]
    if not won:
        return "- (0 won)"
    steps = statistics.mean(_steps(r) for r in won)
    commands = statistics.mean(int(r.get("steps") or 0) for r in won)
    return f"{steps:.1f} steps, {commands:.1f} commands ({len(won)} won)"


def steps_table(main: list[dict]) -> str:
    """The average steps of won episodes of one main run: a row per policy, a column
    per game."""
    [layout] = PDDLEGO_PLUS.tables
    cells = paper_rows(main)
    rows = [
        [row, *(steps_cell(cells.get((row, column), ([], 0))[0]) for column in layout.columns)]
        for row in POLICIES
        if any((row, column) in cells for column in layout.columns)
    ]
    return (
        "### Average steps of won episodes\n\n"
        f"{run_caption(main, layout.paper_model)}\n\n"
        + markdown_table(["", *(f"{c}: won episodes" for c in layout.columns)], rows)
        + "\n\nA step is one plan cycle (PlanGen: one call naming a command), as the "
        "authors' trial record counts them; commands are the game commands played, the "
        "replays after a restart included. The paper's text prints no average we hold."
    )


def models_table(runs: Sequence[list[dict]]) -> str:
    """The model-scale comparison: the paper's main table with a column per run (each
    one run's records; two configurations of a model are two columns), then the
    paper's figures."""
    [layout] = PDDLEGO_PLUS.tables
    cells = [paper_rows(main) for main in runs]
    rows = []
    for row in layout.rows:
        for column in layout.columns:
            line = [f"{row}, {column}"]
            for run in cells:
                group, wins = run.get((row, column), ([], 0))
                line.append(success_cell(wins, len(group)) if group else "not run")
            line.append(layout.published.get((row, column), "-"))
            rows.append(line)
    labels = []
    for main in runs:
        caption = run_caption(main).removeprefix("this run: ")
        labels.append(caption.replace("|", "/"))
    header = ["success [95% Wilson]", *labels, f"paper ({layout.paper_model})"]
    return (
        "### Model scale: the main table for each model\n\n"
        f"every run recorded in the folder, a column each; paper: {layout.paper_model}\n\n"
        + markdown_table(header, rows)
        + "\n\nThe paper compares models of several sizes and finds those under 100B "
        "parameters (Llama-70B, Qwen-32B) significantly worse; it prints the figures of "
        f"{layout.paper_model} only (the last column). Give each model with its own "
        "reproduce.py run into the same --out: each is a column here."
    )
