"""The classical-planner baseline: a planner sees the task as the agent sees it
(``info["domain_pddl"]`` and ``info["problem_pddl"]``, obfuscated in Mystery
environments), plans, and its plan is executed step by step in the environment.

    python experiments/planner_baseline.py --env Mystery-BW-v0 --instances 0:100

Results go to ``--out`` as JSON lines; rerunning with the same arguments resumes.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import gymnasium as gym

import planloop  # noqa: F401  (registers the environments)
from planloop.pddl import PLANNERS
from planloop.policies import PlannerPolicy, run_episode
from planloop.results import ResultsFile, config_hash
from planloop.stats import wilson_interval


def parse_range(text: str) -> range:
    start, _, stop = text.partition(":")
    return range(int(start), int(stop)) if stop else range(int(start), int(start) + 1)


def run_instance(env, instance: int, planner: str, timeout: float) -> dict:
    """Plan from what the agent sees, then execute; the environment judges the result."""
    policy = PlannerPolicy(planner, timeout)
    episode = run_episode(env, policy, options={"instance": instance})
    result = policy.result
    error = next((e["message"] for e in episode.errors if e), None)
    return {"instance": instance, "status": result.status, "won": episode.won,
            "plan_length": len(result.plan or ()), "executed": episode.steps,
            "planner_seconds": round(result.seconds, 4), "error": error,
            "message": "" if result.solved else result.message}


def summarize(records: list[dict]) -> str:
    wins = sum(r["won"] for r in records)
    low, high = wilson_interval(wins, len(records))
    lengths = [r["plan_length"] for r in records if r["won"]]
    seconds = [r["planner_seconds"] for r in records]
    statuses = {}
    for r in records:
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    rows = [
        "| episodes | won | success | 95% Wilson | mean plan length | mean planner s | statuses |",
        "|---:|---:|---:|:---:|---:|---:|:---|",
        f"| {len(records)} | {wins} | {wins / max(1, len(records)):.1%} | "
        f"[{low:.1%}, {high:.1%}] | {statistics.mean(lengths) if lengths else 0:.2f} | "
        f"{statistics.mean(seconds) if seconds else 0:.3f} | "
        + ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items())) + " |",
    ]
    return "\n".join(rows)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", default="Mystery-BW-v0")
    parser.add_argument("--planner", default="lama-first", choices=PLANNERS)
    parser.add_argument("--instances", default="0:100", type=parse_range,
                        help="START:STOP range of instance indices (default 0:100)")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--out", default="results/planner_baseline.jsonl")
    args = parser.parse_args(argv)

    config = {"study": "planner_baseline", "env": args.env, "planner": args.planner,
              "timeout": args.timeout}
    run_id = config_hash(config)
    results = ResultsFile(args.out)
    env = gym.make(args.env)
    start = time.monotonic()
    todo = [i for i in args.instances if f"{run_id}/{i}" not in results.done]
    print(f"{args.env} with {args.planner}: {len(args.instances) - len(todo)} episodes already "
          f"in {args.out}, {len(todo)} to run", file=sys.stderr)
    for done, instance in enumerate(todo, start=1):
        record = run_instance(env, instance, args.planner, args.timeout)
        results.append({"key": f"{run_id}/{instance}", "config": config, **record})
        print(f"\r{done}/{len(todo)} episodes", end="", file=sys.stderr, flush=True)
    print(f"\nfinished in {time.monotonic() - start:.1f} s", file=sys.stderr)
    mine = [r for r in results.records if r["key"].startswith(run_id + "/")
            and r["instance"] in args.instances]
    print(f"## {args.env}, {args.planner}, instances {args.instances.start}-"
          f"{args.instances.stop - 1}\n")
    print(summarize(mine))
    return 0


if __name__ == "__main__":
    sys.exit(main())
