"""Reproduce a paper's tables with one command: the paper's protocol (each study's
``--paper``, ``planloop.protocols``) at the paper's n, each table written as
``DIR/<paper>-<table>.md`` with the paper's rows and columns, the published figure beside
each reproduced one, Wilson intervals and the model errors.

    python experiments/reproduce.py pddlego-plus --llm openai:o3-mini --workers 8
    python experiments/reproduce.py mystery --llm openai:gpt-4 --out results/papers
    python experiments/reproduce.py baking --llm URL@MODEL --limit 1   # a smoke run

PAPER is one of pddlego-plus (CoinCollector: 5 sizes x 4 seeds; ALFWorld: 134 games;
PDDLego+ and PlanGen), mystery (600 instances; direct one-shot, direct zero-shot,
pipeline), nl-pddl (Table 3), agentic (Table II) or baking (the horizon table).
``--limit N`` plays the first N instances (trials for baking, problems per cell for
nl-pddl) of every cell. Flags after ``--`` go to every study the paper runs, as
overrides of its protocol (named in each table's caption). The studies' results stay in
``DIR/<paper>/`` (rerunning resumes). ALFWorld's 134 games are the ``valid_unseen`` split
of ALFWorld's data (``$ALFWORLD_DATA``); without it, the first 134 generated games.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import sys
from pathlib import Path

from planloop.protocols import PROTOCOLS
from planloop.results import ResultsFile
from planloop.study import (
    StudyError,
    check_model,
    latest_records,
    open_model,
    positive_float,
    positive_int,
    study_main,
)
from planloop.study.flags import CALL_TIMEOUT

HERE = Path(__file__).resolve().parent
COIN_SIZES = (3, 5, 7, 9, 11)
COIN_SEEDS, ALFWORLD_GAMES, MYSTERY_INSTANCES, BAKING_TRIALS = 4, 134, 600, 5


def study(name: str):
    """The study script ``experiments/<name>.py`` as a module."""
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

    def run(self, name: str, out: Path, flags: list[str], model=True) -> list[dict]:
        """``experiments/<name>.py --paper FLAGS``; the latest record of each key in
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
        code = study(name).main(argv, model=self.model if model else None)
        if code != 0:
            raise StudyError(f"{name}.py {' '.join(argv)} ended with exit code {code}")
        return list(latest_records(ResultsFile(out / "episodes.jsonl").records).values())


def titled(paper: str, table: str) -> str:
    """``table`` under the title of the paper's (first) table."""
    return f"### {PROTOCOLS[paper].tables[0].title}\n\n{table}"


def pddlego_plus(runner: Runner, out: Path) -> dict[str, str]:
    truth = runner.args.llm == "groundtruth"
    alfworld = ["-o", "split=valid_unseen"] if os.environ.get("ALFWORLD_DATA") else []
    for policy in ("pddlego",) if truth else ("pddlego", "plangen"):
        for size in COIN_SIZES:
            runner.run(
                "pddlego",
                out,
                [
                    "--policy",
                    policy,
                    "--env",
                    "CoinCollector-v0",
                    "-o",
                    f"num_locations={size}",
                    "--instances",
                    f"0:{runner.first(COIN_SEEDS)}",
                ],
                model=not truth,
            )
        records = runner.run(
            "pddlego",
            out,
            [
                "--policy",
                policy,
                "--env",
                "ALFWorld-v0",
                *alfworld,
                "--instances",
                f"0:{runner.first(ALFWORLD_GAMES)}",
            ],
            model=not truth,
        )
    tables = study("pddlego").paper_tables(records)
    if not alfworld:
        tables["success"] += (
            "\n\nALFWorld: the first generated games, not the authors' "
            "134 valid_unseen games (set ALFWORLD_DATA to ALFWorld's data "
            "for those)."
        )
    if truth:
        tables["success"] += "\n\nThe ground truth formalizes: PlanGen needs a model."
    return tables


def mystery(runner: Runner, out: Path) -> dict[str, str]:
    records = runner.run(
        "mystery",
        out,
        [
            "--conditions",
            "direct-one-shot,direct-zero-shot,pipeline",
            "--instances",
            f"0:{runner.first(MYSTERY_INSTANCES)}",
        ],
    )
    return {"table-1": study("mystery").paper_table(records)}


def nl_pddl(runner: Runner, out: Path) -> dict[str, str]:
    limit = [] if runner.args.limit is None else ["--per-cell", str(runner.args.limit)]
    records = runner.run("formalize", out, limit, model=runner.args.llm != "groundtruth")
    return {"table-3": titled("nl-pddl", study("formalize").paper_table(records))}


def agentic(runner: Runner, out: Path) -> dict[str, str]:
    limit = [] if runner.args.limit is None else ["--instances", f"0:{runner.args.limit}"]
    records = runner.run("agentic", out, limit)
    script = study("agentic")
    groups = script.by_condition(records, list(script.CONDITIONS))
    return {"table-ii": titled("agentic", script.table_ii(groups))}


def baking(runner: Runner, out: Path) -> dict[str, str]:
    records = runner.run(
        "horizon_sweep",
        out,
        [
            "--env",
            "Baking-v0",
            "--horizons",
            "open,5,1",
            "--instances",
            "0:4",
            "--trials",
            str(runner.first(BAKING_TRIALS)),
        ],
    )
    return {"table": study("horizon_sweep").paper_table(records, range(4))}


PAPERS = {
    "pddlego-plus": pddlego_plus,
    "mystery": mystery,
    "nl-pddl": nl_pddl,
    "agentic": agentic,
    "baking": baking,
}


def write_tables(paper: str, tables: dict[str, str], out: Path, limit: int | None) -> list[Path]:
    """Each table as ``out/<paper>-<name>.md``, headed by the protocol and its n."""
    protocol = PROTOCOLS[paper]
    smoke = f" (a smoke run: the first {limit} of every cell)" if limit is not None else ""
    paths = []
    for name, table in tables.items():
        path = out / f"{paper}-{re.sub(r'[^a-z0-9]+', '-', name.lower())}.md"
        path.write_text(
            f"# {protocol.paper}\n\n{protocol.caption()}; the paper's n: "
            f"{protocol.n}{smoke}\n\n{table}\n"
        )
        paths.append(path)
    return paths


@study_main
def main(argv=None, model=None) -> int:
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
    tables = PAPERS[args.paper](Runner(args, model, extra), args.out / args.paper)
    for path in write_tables(args.paper, tables, args.out, args.limit):
        print(f"\n{path}:\n\n{path.read_text()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
