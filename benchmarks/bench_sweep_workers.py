"""Parallel episodes in the horizon sweep: wall time with ``--workers 1`` against
``--workers 8``, and the cost of an identical rerun.

The model is scripted and takes 200 ms a call (a stand-in for a hosted model's
latency); it follows Fast Downward's plan of each problem, so episodes are real and
win. 32 episodes: 2 horizons x 4 problems x 4 trials.

    python benchmarks/bench_sweep_workers.py
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import gymnasium as gym

import planloop  # noqa: F401
from planloop.pddl import solve
from planloop.policies.doubles import following_model, goal_of
from planloop.protocols.baking import study as sweep
from planloop.results import ResultsFile
from planloop.study.spec import run_spec


def plans_by_goal(env_id: str, instances) -> dict[str, list[str]]:
    env, plans = gym.make(env_id), {}
    for instance in instances:
        _, info = env.reset(options={"instance": instance})
        result = solve(info["domain_pddl"], info["problem_pddl"], planner="lama-first", timeout=60)
        assert result.plan is not None, result.message
        plans[info["task"]] = [step.lower() for step in result.plan]
    return plans


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--env", default="Baking-v0")
    parser.add_argument("--delay", type=float, default=0.2, help="seconds per model call")
    parser.add_argument("--workers", type=int, default=8)
    args = parser.parse_args(argv)
    instances, trials = range(4), 4
    horizons: list[sweep.Horizon] = [5, "open"]
    plans = plans_by_goal(args.env, instances)
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for workers in (1, args.workers):
            out = Path(scratch) / f"workers-{workers}"
            for run in ("first", "rerun"):
                model = following_model(lambda m: plans[goal_of(m)], delay=args.delay)
                start = time.monotonic()
                flags = ["--env", args.env, "--horizons", ",".join(map(str, horizons))]
                flags += ["--instances", f"0:{len(instances)}", "--trials", str(trials)]
                flags += ["--workers", str(workers), "--out", str(out)]
                run_spec(sweep.SPEC, [*flags, "--temperature", "0"], model, show=False)
                records = list(ResultsFile(out / "episodes.jsonl").records)
                seconds = time.monotonic() - start
                rows.append(
                    (
                        workers,
                        run,
                        len(records),
                        sum(r["won"] for r in records),
                        model.calls,
                        seconds,
                    )
                )
    print(
        f"## Horizon sweep on {args.env}: 32 episodes, scripted model at "
        f"{args.delay * 1000:.0f} ms a call\n"
    )
    print("| workers | run | episodes | won | model calls | seconds |")
    print("|---:|:---|---:|---:|---:|---:|")
    for workers, run, episodes, won, calls, seconds in rows:
        print(f"| {workers} | {run} | {episodes} | {won} | {calls} | {seconds:.2f} |")
    serial, parallel = rows[0][-1], rows[2][-1]
    print(
        f"\n--workers {args.workers} is {serial / parallel:.1f}x faster than --workers 1; "
        f"identical reruns made {rows[1][4] + rows[3][4]} model calls."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
