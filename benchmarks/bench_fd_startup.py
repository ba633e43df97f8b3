"""What Fast Downward's start-up costs each ``solve(..., planner="lama-first")`` call on a
small task (a 4-block Blocksworld in IPC-2000's layout, by default), with the translator
kept warm (:mod:`planloop.pddl.fd_worker`) and with a translator process per call
(``PLANLOOP_FD_WORKER=0``, the old path).

Each path runs in a fresh Python process of its own, so that its run 1 pays every
first-call cost (the warm worker's start included); plan caching plays no part (it is
``solve`` itself that is timed). Runs 2 to ``--runs`` solve the same task again: its
translation is kept (``fd_planner.TRANSLATIONS``), so they cost the search. Then as many
solves of other tasks of the same size (other seeds) show what a new task costs: the
translator's start-up (on the per-call path) and its work. Prints run 1, the median of
runs 2 to ``--runs`` and their ratio, and the median over the other tasks, for both
paths.

    python benchmarks/bench_fd_startup.py --runs 10
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from timing import timed

from planloop.envs.blocksworld import generate_problem
from planloop.pddl import solve
from planloop.pddl.fd_planner import FD_WORKER_VARIABLE

DOMAIN = (
    Path(__file__).resolve().parent.parent / "tests" / "data" / "ipc2000-blocks" / "domain.pddl"
)
PATHS = {"warm": "1", "per-call": "0"}


def timings(blocks: int, runs: int) -> dict[str, list[float]]:
    """The seconds of ``runs`` solves of one ``blocks``-block task in this process, then
    of ``runs`` - 1 other tasks of that size."""
    same = [generate_problem(blocks, seed=3, style="ipc")] * runs
    other = [generate_problem(blocks, seed=100 + n, style="ipc") for n in range(runs - 1)]
    return {"same": [solve_timed(p) for p in same], "other": [solve_timed(p) for p in other]}


def solve_timed(problem: str) -> float:
    """The seconds lama-first takes to solve ``problem`` (it must)."""
    (seconds,), result = timed(lambda: solve(DOMAIN, problem, planner="lama-first"))
    if not result.solved:
        raise SystemExit(f"not solved: {result.status}: {result.message}")
    return seconds


def measure(path: str, blocks: int, runs: int) -> dict[str, list[float]]:
    """:func:`timings` in a fresh process taking ``path``."""
    env = dict(os.environ, **{FD_WORKER_VARIABLE: PATHS[path]})
    out = subprocess.run(
        [sys.executable, __file__, "--blocks", str(blocks), "--runs", str(runs), "--child"],
        env=env,
        check=True,
        stdout=subprocess.PIPE,
        text=True,
    ).stdout
    return json.loads(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--blocks", type=int, default=4)
    parser.add_argument("--runs", type=int, default=10, help="at least 2 (default 10)")
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.runs < 2:
        parser.error("--runs must be at least 2")
    if args.child:
        print(json.dumps(timings(args.blocks, args.runs)))
        return
    print(f"solve(lama-first), {args.blocks} blocks, {os.cpu_count()} cores")
    found = {}
    for path in PATHS:
        times = measure(path, args.blocks, args.runs)
        first, rest = times["same"][0], statistics.median(times["same"][1:])
        other = statistics.median(times["other"])
        found[path] = {
            "first_s": first,
            "rest_median_s": rest,
            "ratio": rest / first,
            "other_median_s": other,
        }
        print(
            f"{path:>9}: run 1 {first * 1000:6.1f} ms, median of runs 2-{args.runs} "
            f"{rest * 1000:6.1f} ms, ratio {rest / first:.2f}; other tasks "
            f"{other * 1000:6.1f} ms"
        )
    if args.json:
        args.json.write_text(json.dumps({"blocks": args.blocks, "runs": args.runs, **found}))


if __name__ == "__main__":
    main()
