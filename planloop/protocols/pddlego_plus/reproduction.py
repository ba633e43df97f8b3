"""PDDLego+'s reproduction: its studies at the paper's n (the protocol's ``ENVIRONMENTS``)
and its tables over each run, as ``experiments/reproduce.py pddlego-plus`` runs them."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from ...envs.alfworld.sources import RELEASE as ALFWORLD_RELEASE
from ...results import Record
from ...study import StudyError
from ...study.runs import run_key, split_runs
from ..reproduction import Runner, Tables, of_protocol
from .extras import of_role, won_domain
from .figures import figure_10_table, figure_12_table, save_figures
from .protocol import ALFWORLD_SPLIT, ENVIRONMENTS, PDDLEGO_PLUS, PaperGames
from .scale import models_table, steps_table
from .study import GROUND_TRUTH, main, paper_tables, twx_missing


def reproduction(runner: Runner, out: Path) -> tuple[list[Record], Tables]:
    """PDDLego+ and PlanGen on the paper's games at its n (the protocol's
    ``ENVIRONMENTS``): each CoinCollector size, its TextWorld Express seeds and trials;
    each ALFWorld task type, its games (ALFWorld's released ones when ``$ALFWORLD_DATA``
    holds them, else generated ones). Then, with a model, the extra runs of Figures 10
    and 12 on the same games: PDDLego+ with the DF of the model's first won episode on
    each game fixed (none where it won none) and on ALFWorld with the simple prompt.
    Writes Figures 10 and 12 over every run in ``out`` beside the tables
    (``out.parent``). Stops first, in one line, when TextWorld Express cannot run here,
    unless ``-- --coin-games generated`` plays planloop's houses."""
    truth = runner.llm == "groundtruth"
    missing = twx_missing()
    if missing is not None and given(runner.extra, "--coin-games") != "generated":
        raise StudyError(
            f"pddlego-plus plays TextWorld Express's CoinCollector games, which need "
            f"{missing}; or play planloop's generated houses with -- --coin-games "
            "generated (said in the caption)"
        )
    released = os.environ.get("ALFWORLD_DATA")
    released = released if released and Path(released, ALFWORLD_RELEASE).is_dir() else None

    def play(policy: str, games: PaperGames, flags: tuple[str, ...] = ()) -> list[Record]:
        split = ALFWORLD_SPLIT if games.env_id == "ALFWorld-v0" and released else None
        records: list[Record] = []
        for cell in games.cells:
            options = [f"{key}={json.dumps(value)}" for key, value in cell.items()]
            options += [f"split={split}"] if split else []
            records = runner.run(
                main,
                out,
                [
                    "--policy",
                    policy,
                    "--env",
                    games.env_id,
                    *(part for option in options for part in ("-o", option)),
                    "--instances",
                    f"0:{runner.first(games.instances)}",
                    "--trials",
                    str(runner.first(games.trials)),
                    *flags,
                ],
                model=not truth,
            )
        return records

    records: list[Record] = []
    for policy in ("pddlego",) if truth else ("pddlego", "plangen"):
        for games in ENVIRONMENTS.values():
            records = play(policy, games)
    if not truth:
        records = play("pddlego", ENVIRONMENTS["ALFWorld"], ("--prompt", "simple"))
        mine = [r for r in of_role(records, "main") if run_key(r).spec == runner.llm]
        for games in ENVIRONMENTS.values():
            df = won_domain(mine, games.env_id)
            if df is not None:
                path = out / f"rag-df-{hashlib.sha256(df.encode()).hexdigest()[:8]}.pddl"
                path.write_text(df)
                records = play("pddlego", games, ("--domain-file", str(path)))
    runs = list(split_runs(of_role(of_protocol(records, PDDLEGO_PLUS.name), "main")).values())
    save_figures(runs, records, out.parent, PDDLEGO_PLUS.name)
    return of_role(records, "main"), tables_of(records, runner.llm)


def tables_of(records: list[Record], spec: str) -> Tables:
    """The tables of each main run (its records, the extra runs found among
    ``records``), the model-scale comparison over every main run with the last run of
    ``spec`` (the one just made: written and printed once)."""
    runs = list(split_runs(of_role(of_protocol(records, PDDLEGO_PLUS.name), "main")).values())
    last = next(
        (m for m in reversed(runs) if run_key(m[0]).spec == spec), runs[-1] if runs else None
    )

    def tables(main: list[Record]) -> dict[str, str]:
        found = reproduced_tables(main)
        found["steps"] = steps_table(main)
        found["figure 10"] = figure_10_table(main, records) + _png(10)
        found["figure 12"] = figure_12_table(main, records) + _png(12)
        if last is not None and run_key(main[0]) == run_key(last[0]):
            found["models"] = models_table(runs)
        return found

    return tables


def _png(number: int) -> str:
    return (
        f"\n\nDrawn over every run in the folder: {PDDLEGO_PLUS.name}-figure-{number}.png "
        "beside this file."
    )


def given(flags: list[str], name: str) -> str | None:
    """The value of ``name`` among ``flags`` (``--name V`` or ``--name=V``; the last
    one given), else None."""
    value = None
    for i, flag in enumerate(flags):
        if flag == name and i + 1 < len(flags):
            value = flags[i + 1]
        elif flag.startswith(name + "="):
            value = flag.split("=", 1)[1]
    return value


def reproduced_tables(records: list[Record]) -> dict[str, str]:
    """PDDLego+'s tables over one run, with what sets the run apart from the paper's."""
    tables = paper_tables(records)
    provenances = [r.get("provenance") or {} for r in records]
    if any(
        p.get("env") == "CoinCollector-v0" and (p.get("env_kwargs") or {}).get("backend") != "twx"
        for p in provenances
    ):
        tables["success"] += (
            "\n\nCoinCollector: planloop's generated houses (--coin-games generated), not "
            "TextWorld Express's games the authors played."
        )
    if any(
        p.get("env") == "ALFWorld-v0" and "split" not in (p.get("env_kwargs") or {})
        for p in provenances
    ):
        tables["success"] += (
            "\n\nALFWorld: generated games of each task type, not ALFWorld's released "
            "games (set ALFWORLD_DATA to ALFWorld's data for those)."
        )
    if run_key(records[0]).model == GROUND_TRUTH:
        tables["success"] += "\n\nThe ground truth formalizes: PlanGen needs a model."
    return tables
