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

PAPER is one of the papers of ``planloop.protocols`` (listed below, each with what it
plays). ``--limit N`` plays the first N instances (trials for baking, problems per cell for
nl-pddl; instances and at most N trials for pddlego-plus) of every cell, and caps the
model calls of an episode the paper bounds by time alone (agentic's direct baseline and
agentic loop, ``planloop.protocols.reproduction.SMOKE_CALLS`` each, named in the
caption). Flags after ``--`` go to every study the paper runs, as overrides of its
protocol (named in each table's caption). The studies' results stay in
``DIR/<paper>/`` (rerunning resumes). ALFWorld's games are the first 20 of each task type
in the train split of ALFWorld's data (``$ALFWORLD_DATA``); without it, generated games.
Without java, pddlego-plus stops unless ``-- --coin-games generated`` plays planloop's
generated houses instead (said in the caption).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from planloop.llm import ChatModel
from planloop.protocols.registry import papers
from planloop.protocols.reproduction import (
    SMOKE_CALLS,
    Runner,
    heading,
    reproduce,
    write_tables,
)
from planloop.study import (
    StudyError,
    check_model,
    open_model,
    positive_float,
    study_main,
)
from planloop.study.flags import CALL_TIMEOUT, episode_count, worker_count
from planloop.study.progress import one_line


@study_main
def main(argv: list[str] | None = None, model: ChatModel | None = None) -> int:
    """Runs the paper's studies (quietly: their files are written, their tables not
    printed), writes the paper's tables of every run in ``--out`` and prints those of
    the model ``--llm`` names, once each, then the paths written."""
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = argv[argv.index("--") + 1 :] if "--" in argv else []
    argv = argv[: argv.index("--")] if "--" in argv else argv
    known = papers()
    parser = argparse.ArgumentParser(
        description=__doc__,
        usage="%(prog)s [-h] PAPER --llm SPEC [options] [-- STUDY FLAGS]",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="papers:\n" + "\n".join(f"  {n}: {p.summary}" for n, p in known.items()),
    )
    parser.add_argument("paper", choices=known)
    parser.add_argument(
        "--llm",
        required=True,
        metavar="SPEC",
        help="openai:MODEL, URL@MODEL, or groundtruth (pddlego-plus and "
        "nl-pddl only: their ground-truth formalizers)",
    )
    parser.add_argument(
        "--limit",
        type=episode_count,
        metavar="N",
        help="the first N instances of every cell (default: the paper's n), and at most "
        f"{SMOKE_CALLS} model calls an episode where the paper bounds an episode by time "
        "alone (agentic: the direct baseline's samples and the agentic loop's calls)",
    )
    parser.add_argument("--workers", type=worker_count, default=1, metavar="N")
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
    paper = known[args.paper]
    if args.llm == "groundtruth" and not paper.ground_truth:
        raise StudyError(f"{args.paper} has no ground-truth formalizer: give a model")
    built = None
    if model is None and args.llm != "groundtruth":
        model = built = open_model(args.llm, args.call_timeout)
        check_model(built)
    folder = args.out / args.paper
    runner = Runner(args.llm, args.workers, args.limit, model, extra)
    with one_line():  # every study of the paper on one progress line, failures at the end
        runs = reproduce(args.paper, *paper.reproduction(runner, folder))
    args.out.mkdir(parents=True, exist_ok=True)
    paths = write_tables(paper.protocol, runs, args.out, args.limit)
    mine = [tables for run, tables in runs.items() if run.spec == args.llm]
    print(heading(paper.protocol, args.limit))
    for name in dict.fromkeys(name for tables in mine for name in tables):
        print("\n" + "\n\n".join(tables[name] for tables in mine if name in tables))
    files = ", ".join(sorted(p.name for p in folder.iterdir() if not p.name.startswith(".")))
    pictures = sorted(args.out.glob(f"{args.paper}-*.png"))
    print(
        "\nwritten (every run in the folder):",
        *paths,
        *pictures,
        f"{folder}/ ({files})",
        sep="\n  ",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
