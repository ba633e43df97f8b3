"""The classical-planner baseline: a planner sees the task as the agent sees it
(``info["domain_pddl"]`` and ``info["problem_pddl"]``, obfuscated in Mystery
environments), plans, and its plan is executed step by step in the environment.

    python experiments/planner_baseline.py --env Mystery-BW-v0 --instances 0:100

``--out DIR`` (default ``results/planner_baseline``) receives ``episodes.jsonl``, one
record per episode appended as it ends; rerunning the same command resumes and skips
finished episodes. The table (success with its 95% Wilson interval) is printed.
"""

from __future__ import annotations

import statistics
import sys
from collections import Counter

from planloop.pddl import PLANNERS
from planloop.policies import PlannerPolicy, run_episode
from planloop.stats import wilson_interval
from planloop.study import Study, markdown_table, run_study, study_main, study_parser, tally


def run_instance(env, instance: int, planner: str, timeout: float) -> dict:
    """Plan from what the agent sees, then execute; the environment judges the result."""
    policy = PlannerPolicy(planner, timeout)
    episode = run_episode(env, policy, options={"instance": instance})
    result = policy.result
    action_error = next((e["message"] for e in episode.errors if e), None)
    return {"policy": episode.policy, "status": result.status, "won": episode.won,
            "plan_length": len(result.plan or ()), "executed": episode.steps,
            "planner_seconds": round(result.seconds, 4), "action_error": action_error,
            "message": "" if result.solved else result.message}


def summarize(records: list[dict]) -> str:
    wins, n = tally(records)
    low, high = wilson_interval(wins, n)
    lengths = [r["plan_length"] for r in records if r["won"]]
    seconds = [r["planner_seconds"] for r in records]
    statuses = Counter(r["status"] for r in records)
    row = [n, wins, f"{wins / max(1, n):.1%}", f"[{low:.1%}, {high:.1%}]",
           f"{statistics.mean(lengths) if lengths else 0:.2f}",
           f"{statistics.mean(seconds) if seconds else 0:.3f}",
           ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items()))]
    return markdown_table(["episodes", "won", "success", "95% Wilson", "mean plan length",
                           "mean planner s", "statuses"], [row], align="rrrcrrl")


@study_main
def main(argv=None) -> int:
    parser = study_parser(__doc__, env="Mystery-BW-v0", out="results/planner_baseline",
                          instances="0:100", llm_required=None)
    parser.add_argument("--planner", default="lama-first", choices=PLANNERS)
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args(argv)
    study = Study("planner_baseline", args.env, dict(args.option),
                  settings={"timeout": args.timeout})

    def play(env, job) -> dict:
        return run_instance(env, job.instance, job.condition["planner"], args.timeout)

    jobs = study.jobs([{"planner": args.planner}], args.instances, args.trials)
    records = run_study(study, jobs, play, out=args.out, workers=args.workers,
                        backend=args.backend)
    print(f"## {args.env}, {args.planner}, instances {args.instances.start}-"
          f"{args.instances.stop - 1}\n")
    print(summarize(records))
    return 0


if __name__ == "__main__":
    sys.exit(main())
