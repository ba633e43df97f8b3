"""Reproduce a paper's tables with one command: the paper's protocol (each study's
``--paper``, ``planloop.protocols``) at the paper's n, each table written as
``DIR/<paper>-<table>.md`` with the paper's rows and columns, the published figure beside
each reproduced one, Wilson intervals and the model errors: one table per run recorded in
``DIR/<paper>/`` (a run is one model under one configuration: two models, or one model
with other overrides, never share a cell), each naming its model and the paper's. It
prints the tables of the model ``--llm`` names, once each, and the paths it wrote; the
studies it runs print only their progress.

    python experiments/reproduce.py pddlego-plus --llm openai:o3-mini --workers 8
    python experiments/reproduce.py mystery --llm openai:gpt-4 --out results/papers
    python experiments/reproduce.py baking --llm URL@MODEL --limit 1   # a smoke run

PAPER is one of pddlego-plus (PDDLego+ and PlanGen; CoinCollector: TextWorld Express's
games, 5 sizes x 4 seeds x 5 trials, needing java; ALFWorld: 5 task types x 20 games),
mystery (600 instances; direct one-shot, direct zero-shot,
pipeline at K = 2 attempts), nl-pddl (Table 3), agentic (Tables I, II and III and the
token cost; the 6 shipped IPC-2000 instances unless ``-- -o domain=FOLDER/domain.pddl -o
problem=FOLDER/instances`` names the paper's 102, see
``planloop/envs/data/ipc2000_blocks/README.md``) or baking (the horizon table).
``--limit N`` plays the first N instances (trials for baking, problems per cell for
nl-pddl; instances and at most N trials for pddlego-plus) of every cell. Flags after ``--`` go to every study the paper runs, as
overrides of its protocol (named in each table's caption). The studies' results stay in
``DIR/<paper>/`` (rerunning resumes). ALFWorld's games are the first 20 of each task type
in the train split of ALFWorld's data (``$ALFWORLD_DATA``); without it, generated games.
Without java, pddlego-plus stops unless ``-- --coin-games generated`` plays planloop's
generated houses instead (said in the caption).
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path

from planloop.envs.alfworld.sources import RELEASE as ALFWORLD_RELEASE
from planloop.llm import ChatModel
from planloop.protocols import PROTOCOLS
from planloop.protocols.agentic import study as agentic_study
from planloop.protocols.agentic import tables as agentic_tables
from planloop.protocols.baking import PROBLEMS as BAKING_PROBLEMS
from planloop.protocols.baking import ROWS as BAKING_ROWS
from planloop.protocols.baking import TRIALS as BAKING_TRIALS
from planloop.protocols.baking import study as baking_study
from planloop.protocols.baking import tables as baking_tables
from planloop.protocols.mystery import INSTANCES as MYSTERY_INSTANCES
from planloop.protocols.mystery import ROWS as MYSTERY_ROWS
from planloop.protocols.mystery import study as mystery_study
from planloop.protocols.mystery import tables as mystery_tables
from planloop.protocols.nl_pddl import study as nl_pddl_study
from planloop.protocols.nl_pddl import tables as nl_pddl_tables
from planloop.protocols.pddlego_plus import ALFWORLD_SPLIT, ENVIRONMENTS
from planloop.results import ResultsFile
from planloop.study import (
    Ended,
    StudyError,
    check_model,
    latest_records,
    open_model,
    positive_float,
    positive_int,
    study_main,
)
from planloop.study.flags import CALL_TIMEOUT
from planloop.study.runs import Run, run_key, split_runs

HERE = Path(__file__).resolve().parent
StudyMain = Callable[
    [list[str], "ChatModel | None", bool], int
]  # a study's main(argv, model, show)


@functools.cache
def study(name: str):
    """The study script ``experiments/<name>.py`` as a module (loaded once)."""
    spec = importlib.util.spec_from_file_location(f"planloop_study_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Runner:
    """Runs a paper's studies with the shared flags and reads back their records."""

    def __init__(self, args, model, extra: list[str]):
        self.args, self.model, self.extra = args, model, extra

    def first(self, count: int) -> int:
        return count if self.args.limit is None else min(count, self.args.limit)

    def run(self, main: StudyMain, out: Path, flags: list[str], model=True) -> list[dict]:
        """The study ``main`` with ``--paper FLAGS``; the latest record of each key in
        ``out``. ``model=False``: the study builds no model (the ground truth)."""
        argv = [
            "--paper",
            *flags,
            "--llm",
            self.args.llm,
            "--workers",
            str(self.args.workers),
            "--out",
            str(out),
            *self.extra,
        ]
        code = main(argv, self.model if model else None, False)
        if code != 0:  # the study said why (an error, or Ctrl-C / SIGTERM and what it saved)
            raise Ended(code)
        return list(latest_records(ResultsFile(out / "episodes.jsonl").records).values())


Tables = Callable[[list[dict]], dict[str, str]]  # one run's records -> its tables, by name


def pddlego_plus(runner: Runner, out: Path) -> tuple[list[dict], Tables]:
    """PDDLego+ and PlanGen on the paper's games at its n (the protocol's
    ``ENVIRONMENTS``): each CoinCollector size, its TextWorld Express seeds and trials;
    each ALFWorld task type, its games (ALFWorld's released ones when ``$ALFWORLD_DATA``
    holds them, else generated ones). Stops first, in one line, when TextWorld Express
    cannot run here, unless ``-- --coin-games generated`` plays planloop's houses."""
    truth = runner.args.llm == "groundtruth"
    missing = study("pddlego").twx_missing()
    if missing is not None and given(runner.extra, "--coin-games") != "generated":
        raise StudyError(
            f"pddlego-plus plays TextWorld Express's CoinCollector games, which need "
            f"{missing}; or play planloop's generated houses with -- --coin-games "
            "generated (said in the caption)"
        )
    released = os.environ.get("ALFWORLD_DATA")
    released = released if released and Path(released, ALFWORLD_RELEASE).is_dir() else None
    records: list[dict] = []
    for policy in ("pddlego",) if truth else ("pddlego", "plangen"):
        for games in ENVIRONMENTS.values():
            split = ALFWORLD_SPLIT if games.env_id == "ALFWorld-v0" and released else None
            for cell in games.cells:
                options = [f"{key}={json.dumps(value)}" for key, value in cell.items()]
                options += [f"split={split}"] if split else []
                records = runner.run(
                    study("pddlego").main,
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
                    ],
                    model=not truth,
                )
    return records, pddlego_plus_tables


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


def pddlego_plus_tables(records: list[dict]) -> dict[str, str]:
    """PDDLego+'s tables over one run, with what sets the run apart from the paper's."""
    script = study("pddlego")
    tables = script.paper_tables(records)
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
    if run_key(records[0]).model == script.GROUND_TRUTH:
        tables["success"] += "\n\nThe ground truth formalizes: PlanGen needs a model."
    return tables


def mystery(runner: Runner, out: Path) -> tuple[list[dict], Tables]:
    records = runner.run(
        mystery_study.main,
        out,
        [
            "--conditions",
            ",".join(MYSTERY_ROWS),
            "--instances",
            f"0:{runner.first(MYSTERY_INSTANCES)}",
        ],
    )
    return records, lambda run: {"table-1": mystery_tables.paper_table(run)}


def nl_pddl(runner: Runner, out: Path) -> tuple[list[dict], Tables]:
    limit = [] if runner.args.limit is None else ["--per-cell", str(runner.args.limit)]
    records = runner.run(nl_pddl_study.main, out, limit, model=runner.args.llm != "groundtruth")
    return records, lambda run: {"table-3": nl_pddl_tables.paper_table(run)}


def agentic(runner: Runner, out: Path) -> tuple[list[dict], Tables]:
    limit = [] if runner.args.limit is None else ["--instances", f"0:{runner.args.limit}"]
    return runner.run(agentic_study.main, out, limit), agentic_tables.paper_tables


def baking(runner: Runner, out: Path) -> tuple[list[dict], Tables]:
    problems = range(BAKING_PROBLEMS)
    records = runner.run(
        baking_study.main,
        out,
        [
            "--env",
            "Baking-v0",
            "--horizons",
            ",".join(str(horizon) for horizon in BAKING_ROWS),
            "--instances",
            f"0:{BAKING_PROBLEMS}",
            "--trials",
            str(runner.first(BAKING_TRIALS)),
        ],
    )
    return records, lambda run: {"table": baking_tables.paper_table(run, problems)}


PAPERS = {
    "pddlego-plus": pddlego_plus,
    "mystery": mystery,
    "nl-pddl": nl_pddl,
    "agentic": agentic,
    "baking": baking,
}


def reproduce(paper: str, records: list[dict], tables: Tables) -> dict[Run, dict[str, str]]:
    """The paper's tables of each run of its protocol recorded in the folder."""
    ours = [
        r
        for r in records
        if ((r.get("provenance") or {}).get("settings") or {}).get("protocol") == paper
    ]
    return {run: tables(group) for run, group in split_runs(ours).items()}


def heading(paper: str, limit: int | None) -> str:
    """The protocol and its n, over a paper's tables."""
    protocol = PROTOCOLS[paper]
    smoke = f" (a smoke run: the first {limit} of every cell)" if limit is not None else ""
    return f"# {protocol.paper}\n\n{protocol.caption()}; the paper's n: {protocol.n}{smoke}"


def write_tables(
    paper: str, runs: dict[Run, dict[str, str]], out: Path, limit: int | None
) -> list[Path]:
    """Each table as ``out/<paper>-<name>.md``: the protocol and its n, then the table
    of each run."""
    names = dict.fromkeys(name for tables in runs.values() for name in tables)
    paths = []
    for name in names:
        path = out / f"{paper}-{re.sub(r'[^a-z0-9]+', '-', name.lower())}.md"
        sections = [heading(paper, limit), *(tables[name] for tables in runs.values())]
        path.write_text("\n\n".join(sections) + "\n")
        paths.append(path)
    return paths


@study_main
def main(argv=None, model=None) -> int:
    """Runs the paper's studies (quietly: their files are written, their tables not
    printed), writes the paper's tables of every run in ``--out`` and prints those of
    the model ``--llm`` names, once each, then the paths written."""
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = argv[argv.index("--") + 1 :] if "--" in argv else []
    argv = argv[: argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("paper", choices=PAPERS)
    parser.add_argument(
        "--llm",
        required=True,
        metavar="SPEC",
        help="openai:MODEL, URL@MODEL, or groundtruth (pddlego-plus and "
        "nl-pddl only: their ground-truth formalizers)",
    )
    parser.add_argument(
        "--limit",
        type=positive_int,
        metavar="N",
        help="the first N instances of every cell (default: the paper's n)",
    )
    parser.add_argument("--workers", type=positive_int, default=1, metavar="N")
    parser.add_argument(
        "--call-timeout",
        type=positive_float,
        default=CALL_TIMEOUT,
        metavar="S",
        help="the longest one model call may take, its retries "
        f"included (default {CALL_TIMEOUT:g} s)",
    )
    parser.add_argument("--out", type=Path, default=Path("results/papers"), metavar="DIR")
    args = parser.parse_args(argv)
    if args.llm == "groundtruth" and args.paper not in ("pddlego-plus", "nl-pddl"):
        raise StudyError(f"{args.paper} has no ground-truth formalizer: give a model")
    built = None
    if model is None and args.llm != "groundtruth":
        model = built = open_model(args.llm, args.call_timeout)
        check_model(built)
    args.out.mkdir(parents=True, exist_ok=True)
    folder = args.out / args.paper
    runs = reproduce(args.paper, *PAPERS[args.paper](Runner(args, model, extra), folder))
    paths = write_tables(args.paper, runs, args.out, args.limit)
    mine = [tables for run, tables in runs.items() if run.spec == args.llm]
    print(heading(args.paper, args.limit))
    for name in dict.fromkeys(name for tables in mine for name in tables):
        print("\n" + "\n\n".join(tables[name] for tables in mine if name in tables))
    files = ", ".join(sorted(p.name for p in folder.iterdir() if not p.name.startswith(".")))
    print("\nwritten (every run in the folder):", *paths, f"{folder}/ ({files})", sep="\n  ")
    return 0


if __name__ == "__main__":
    sys.exit(main())
