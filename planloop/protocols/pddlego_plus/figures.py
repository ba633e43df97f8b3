"""The paper's Figures 10 and 12, records in: Figure 10, PDDLego+ with its domain file
written each round (the main table's runs) against one fixed from a won episode of the
same model (RAG_DF: the extra ``--domain-file`` runs); Figure 12, PDDLego+ on ALFWorld
with the detailed prompt (goal templates and hints: the main table's runs) against the
simple one (the extra ``--prompt simple`` runs). Each is a table per run (Markdown) and a
PNG over every run in the folder, one point per game and model."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ...study import markdown_table, save_success_plot, success_cell, tally, with_published
from ...study.plots import Point
from ...study.runs import run_caption, run_key
from .extras import extras_of
from .tables import GROUND_TRUTH, PAPER_COLUMNS, paper_rows

PAPER_MODEL = "o3-mini"  # the model of the figures the paper prints in its text
WRITTEN = "DF written each round (the main table's runs)"
RAG_DF = "DF fixed from the model's first won episode (RAG_DF, extra runs)"
DETAILED = "detailed prompt: goal templates and hints (the main table's runs)"
SIMPLE = "simple prompt (extra runs)"
# Figure 12 as the paper states it (o3-mini, ALFWorld, n = 100 each): 38% against 7%
FIGURE_12_PUBLISHED = {DETAILED: "38%", SIMPLE: "7%"}
FIGURE_12_PAPER_N = 100
FIGURE_10_PAPER = (
    "The paper draws Figure 10 without printing its numbers: the retrieved DF raises "
    "GPT-4.1's success and lowers o3-mini's (section 5.5)."
)


def _column(record: dict) -> str | None:
    return PAPER_COLUMNS.get(str((record.get("provenance") or {}).get("env")))


def _in(records: list[dict], column: str) -> list[dict]:
    return [r for r in records if _column(r) == column]


def rag_df_cells(main: list[dict], records: list[dict]) -> dict[tuple[str, str], tuple[int, int]]:
    """(series, game) -> (wins, n) of Figure 10 for one main run (``main``, its records)
    and its RAG_DF runs among ``records``; a game whose RAG_DF runs are missing is absent."""
    cells = paper_rows(main)
    extra = extras_of(main, records, "rag_df")
    found = {}
    for column in PAPER_COLUMNS.values():
        group, wins = cells.get(("PDDLego+", column), ([], 0))
        if group:
            found[WRITTEN, column] = (wins, len(group))
        if _in(extra, column):
            found[RAG_DF, column] = tally(_in(extra, column))
    return found


def prompt_cells(main: list[dict], records: list[dict]) -> dict[str, tuple[int, int]]:
    """series -> (wins, n) of Figure 12 (ALFWorld) for one main run and its simple-prompt
    runs among ``records``; a series not run is absent."""
    group, wins = paper_rows(main).get(("PDDLego+", "ALFWorld"), ([], 0))
    found = {DETAILED: (wins, len(group))} if group else {}
    simple = _in(extras_of(main, records, "simple_prompt"), "ALFWorld")
    if simple:
        found[SIMPLE] = tally(simple)
    return found


def _not_run(main: list[dict], column: str, what: str) -> str:
    """Why an extra cell is empty, from the main run's records."""
    if run_key(main[0]).model == GROUND_TRUTH:
        return f"not run: the ground truth {what}"
    if what.endswith("DF") and not any(
        r.get("policy") == "pddlego" and r.get("won") and not r.get("error")
        for r in _in(main, column)
    ):
        return "not run: no won PDDLego+ episode to take a DF from"
    return "not run"


def _cell(cells: dict, key, main: list[dict], column: str, why: str) -> str:
    return success_cell(*cells[key]) if key in cells else _not_run(main, column, why)


def figure_10_table(main: list[dict], records: list[dict]) -> str:
    """Figure 10 of one main run: a row per game, PDDLego+'s success with the DF written
    each round and with a fixed one (RAG_DF)."""
    cells = rag_df_cells(main, records)
    rows = [
        [
            column,
            *(
                _cell(cells, (s, column), main, column, "writes the true DF")
                for s in (WRITTEN, RAG_DF)
            ),
        ]
        for column in PAPER_COLUMNS.values()
        if (WRITTEN, column) in cells
    ]
    header = ["", *(f"{s} success [95% Wilson]" for s in (WRITTEN, RAG_DF))]
    return (
        f"### Figure 10: a domain file retrieved from a won episode (RAG_DF)\n\n"
        f"{run_caption(main, PAPER_MODEL)}\n\n{markdown_table(header, rows)}\n\n"
        "RAG_DF: PDDLego+ played again on the same games with the last DF that planned in "
        "the model's first won episode on the game fixed (--domain-file): the model writes "
        f"only problem files. {FIGURE_10_PAPER}"
    )


def figure_12_table(main: list[dict], records: list[dict]) -> str:
    """Figure 12 of one main run: PDDLego+ on ALFWorld with the detailed and the simple
    prompt, beside the paper's figures."""
    cells = prompt_cells(main, records)
    if DETAILED not in cells:
        rows = []
    else:
        rows = [
            [
                series,
                with_published(
                    success_cell(*cells[series])
                    if series in cells
                    else _not_run(main, "ALFWorld", "reads no prompt"),
                    FIGURE_12_PUBLISHED[series],
                ),
            ]
            for series in (DETAILED, SIMPLE)
        ]
    return (
        "### Figure 12: the detailed prompt against the simple one (ALFWorld)\n\n"
        f"{run_caption(main, PAPER_MODEL)}\n\n"
        + markdown_table(["PDDLego+", "ALFWorld success [95% Wilson]"], rows)
        + "\n\nSimple prompt: PDDLego+ played again on the same ALFWorld games with "
        "--prompt simple (no goal templates, no hints)."
    )


def _label(runs: Sequence[list[dict]], main: list[dict]) -> str:
    """A run's name on the x axis: its model, its overrides when two runs share one."""
    label = run_key(main[0]).label
    same = [m for m in runs if run_key(m[0]).label == label]
    return label if len(same) == 1 else f"{label} #{same.index(main) + 1}"


def _named(name: str, runs: Sequence[list[dict]], drawn: list[str]) -> str:
    """A series' legend name, saying which runs have no point in it (``drawn``: the runs
    that have); the series is drawn even without a point, so the legend names it."""
    absent = [label for label in (_label(runs, m) for m in runs) if label not in drawn]
    return f"{name}; not run for {', '.join(absent)}" if absent else name


def figure_10_points(runs: Sequence[list[dict]], records: list[dict]) -> dict[str, list[Point]]:
    """Figure 10's series over main runs (each one run's records): x is the game, and
    the model when there are several."""
    series: dict[str, list[Point]] = {WRITTEN: [], RAG_DF: []}
    drawn: list[str] = []
    for main in runs:
        cells = rag_df_cells(main, records)
        drawn += [_label(runs, main)] if any(s == RAG_DF for s, _ in cells) else []
        for (name, column), (wins, n) in sorted(
            cells.items(), key=lambda item: item[0][1] != "CoinCollector"
        ):
            x = column if len(runs) == 1 else f"{column}\n{_label(runs, main)}"
            series[name].append((x, wins, n))
    return {WRITTEN: series[WRITTEN], _named(RAG_DF, runs, drawn): series[RAG_DF]}


def figure_12_points(runs: Sequence[list[dict]], records: list[dict]) -> dict[str, list[Point]]:
    """Figure 12's series over main runs: x is the model, then the paper's o3-mini
    (its printed rates of its n = 100)."""
    series: dict[str, list[Point]] = {DETAILED: [], SIMPLE: []}
    for main in runs:
        for name, (wins, n) in prompt_cells(main, records).items():
            series[name].append((_label(runs, main), wins, n))
    for name, published in FIGURE_12_PUBLISHED.items():
        wins = round(int(published.rstrip("%")) * FIGURE_12_PAPER_N / 100)
        series[name].append((f"paper: {PAPER_MODEL}", wins, FIGURE_12_PAPER_N))
    drawn = [x for x, _, _ in series[SIMPLE]]
    return {DETAILED: series[DETAILED], _named(SIMPLE, runs, drawn): series[SIMPLE]}


def _played(series: dict[str, list[Point]], paper: bool = False) -> int:
    return sum(
        n for points in series.values() for x, _, n in points if not paper or "paper" not in x
    )


def save_figures(
    runs: Sequence[list[dict]], records: list[dict], folder: Path, prefix: str
) -> list[Path]:
    """``PREFIX-figure-10.png`` and ``PREFIX-figure-12.png`` in ``folder`` over the main
    runs (each one run's records) and ``records`` (their extra runs among them); the paths
    written (none without matplotlib)."""
    paths = []
    ten = figure_10_points(runs, records)
    path = folder / f"{prefix}-figure-10.png"
    if any(ten.values()) and save_success_plot(
        ten,
        path,
        "game" if len(runs) == 1 else "game and model",
        title="Figure 10: PDDLego+ with its DF written each round, and fixed from a won "
        "episode (RAG_DF)",
        order=list(dict.fromkeys(x for points in ten.values() for x, _, _ in points)),
    ):
        paths.append(path)
    twelve = figure_12_points(runs, records)
    path = folder / f"{prefix}-figure-12.png"
    if save_success_plot(
        twelve,
        path,
        "model (the paper's points: its o3-mini runs, 100 episodes each)",
        title="Figure 12: PDDLego+ on ALFWorld, the detailed prompt against the simple one",
        episodes=_played(twelve, paper=True),
    ):
        paths.append(path)
    return paths
