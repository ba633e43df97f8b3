"""Time to parse and ground a Blocksworld task of IPC-2000's largest size (50 blocks).

No 50-block IPC file ships offline, so the problem is generated in IPC-2000's
layout (``generate_problem(50, seed, style="ipc")``) and read against
``tests/data/ipc2000-blocks/domain.pddl``. Ours is timed as a whole
(``planloop.pddl.load``: parse + ground) and in its two halves (``parse``, then
``ground`` of the parsed models). Peers read the same two files, each in a forked
process under ``--timeout``: PDDLGym (``PDDLEnv`` construction with
``operators_as_actions`` and ``dynamic_action_space``, ``reset`` and the first
``all_ground_literals``, which runs its Fast Downward instantiator) and
unified-planning's ``PDDLReader.parse_problem`` (parse only; it does not ground).
Ground-action counts differ by design: PDDLGym drops actions with a repeated
argument, such as ``(stack b1 b1)``. The garbage collector stays on.

    python benchmarks/bench_grounding.py --json /tmp/bench_grounding.json
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import platform
import statistics
import tempfile
import warnings
from importlib.metadata import version
from pathlib import Path
from typing import Callable, TypeVar

from timing import timed

from planloop.envs.blocksworld import generate_problem
from planloop.pddl import ground, load, parse
from planloop.pddl.memo import clear_all

DOMAIN = (
    Path(__file__).resolve().parent.parent / "tests" / "data" / "ipc2000-blocks" / "domain.pddl"
)


T = TypeVar("T")


def cold(call: Callable[[], T], repeat: int) -> tuple[list[float], T]:
    """:func:`timing.timed` with what planloop keeps of earlier readings and groundings
    forgotten before each call."""
    return timed(call, repeat, before=clear_all)


def pddlgym_run(domain: Path, folder: Path, repeat: int) -> tuple[list[float], int]:
    warnings.filterwarnings("ignore")
    from pddlgym.core import PDDLEnv

    def build():
        env = PDDLEnv(
            str(domain), str(folder), operators_as_actions=True, dynamic_action_space=True
        )
        env.fix_problem_index(0)
        obs, _ = env.reset()
        env.action_space.all_ground_literals(obs)
        return env

    times, env = cold(build, repeat)
    return times, len(env.action_space._all_ground_literals)


def up_run(domain: Path, folder: Path, repeat: int) -> tuple[list[float], None]:
    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import get_environment

    get_environment().credits_stream = None
    times, _ = cold(lambda: PDDLReader().parse_problem(str(domain), str(folder / "p.pddl")), repeat)
    return times, None


def _child(conn, run, args) -> None:
    conn.send(run(*args))


def in_child(run, args: tuple, timeout: float):
    """``run(*args)`` in a forked process; None if it takes over ``timeout`` seconds."""
    receive, send = multiprocessing.Pipe(duplex=False)
    process = multiprocessing.get_context("fork").Process(target=_child, args=(send, run, args))
    process.start()
    result = receive.recv() if receive.poll(timeout) else None
    process.terminate()
    process.join()
    return result


def row(tool: str, timed_part: str, times: list[float] | None, actions) -> dict:
    return {
        "tool": tool,
        "timed": timed_part,
        "ground_actions": actions,
        "runs": len(times) if times else 0,
        "min_ms": min(times) * 1e3 if times else None,
        "median_ms": statistics.median(times) * 1e3 if times else None,
    }


def markdown(rows: list[dict]) -> str:
    lines = [
        "| tool | timed | ground actions | runs | min ms | median ms |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        times = f"{r['min_ms']:.1f} | {r['median_ms']:.1f}" if r["runs"] else "timeout | timeout"
        actions = "-" if r["ground_actions"] is None else r["ground_actions"]
        lines.append(f"| {r['tool']} | {r['timed']} | {actions} | {r['runs']} | {times} |")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=50, help="blocks in the problem")
    parser.add_argument("--seed", type=int, default=0, help="problem generator seed")
    parser.add_argument("--repeat", type=int, default=10, help="timed runs of ours")
    parser.add_argument("--peer-repeat", type=int, default=3, help="timed runs of each peer")
    parser.add_argument(
        "--timeout", type=float, default=120, help="seconds allowed to each peer's runs in all"
    )
    parser.add_argument("--skip-pddlgym", action="store_true")
    parser.add_argument("--skip-up", action="store_true")
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    args = parser.parse_args(argv)

    text = generate_problem(args.blocks, seed=args.seed, style="ipc")
    load_times, task = cold(lambda: load(DOMAIN, text), args.repeat)
    parse_times, (domain, problem) = cold(lambda: parse(DOMAIN, text), args.repeat)
    ground_times, _ = cold(lambda: ground(domain, problem), args.repeat)
    actions = len(task.actions)
    rows = [
        row("planloop", "load = parse + ground", load_times, actions),
        row("planloop", "parse", parse_times, None),
        row("planloop", "ground", ground_times, actions),
    ]

    peers = [
        (
            f"PDDLGym {version('pddlgym')}",
            "construct + reset + all_ground_literals",
            pddlgym_run,
            args.skip_pddlgym,
        ),
        (
            f"unified-planning {version('unified-planning')}",
            "PDDLReader.parse_problem",
            up_run,
            args.skip_up,
        ),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "p.pddl").write_text(text)
        for tool, timed_part, run, skip in peers:
            if not skip:
                times, count = in_child(run, (DOMAIN, folder, args.peer_repeat), args.timeout) or (
                    None,
                    None,
                )
                rows.append(row(tool, timed_part, times, count))

    print(
        f"parse + ground of a generated {args.blocks}-block IPC-2000 Blocksworld problem "
        f"(seed {args.seed}, {len(task.facts)} facts), Python {platform.python_version()}\n"
    )
    print(markdown(rows))
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "blocks": args.blocks,
                    "seed": args.seed,
                    "repeat": args.repeat,
                    "peer_repeat": args.peer_repeat,
                    "python": platform.python_version(),
                    "rows": rows,
                },
                indent=2,
            )
        )


if __name__ == "__main__":
    main()
