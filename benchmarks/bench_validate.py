"""Time planloop's ``validate`` against unified-planning's ``SequentialPlanValidator``.

Both sides read (and we ground) each problem once, untimed by the validation
columns; then every plan is validated ``--repeat`` times and the best time per
plan is kept. Ours gets the plan as ``"(action args)"`` strings, so its time
includes reading them; UP gets a ready-built ``SequentialPlan``. Plans are the
valid plan from lama-first and corruptions of it (drops, adjacent swaps, renames,
truncations at evenly spaced positions), all checked to get the same verdict.

    python benchmarks/bench_validate.py --repeat 5 --json /tmp/bench_validate.json
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from functools import partial
from pathlib import Path

import unified_planning
from timing import best
from unified_planning.engines import SequentialPlanValidator
from unified_planning.io import PDDLReader
from unified_planning.plans import ActionInstance, SequentialPlan
from unified_planning.shortcuts import get_environment

from planloop.pddl import load, solve, validate

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
PROBLEMS = [
    (
        "planbench/blocksworld/generated_domain.pddl",
        "planbench/blocksworld/generated_basic/instance-4.pddl",
    ),
    (
        "planbench/mystery/generated_domain.pddl",
        "planbench/mystery/generated_basic/instance-4.pddl",
    ),
    ("ipc2000-blocks/domain.pddl", "ipc2000-blocks/instances/instance-10.pddl"),
    ("ipc2000-blocks/domain.pddl", "ipc2000-blocks/instances/instance-35.pddl"),
]


def words(step: str) -> list[str]:
    return step.strip().strip("()").split()


def corruptions(plan: list[str], arities: dict[str, int], positions: int) -> list[list[str]]:
    """Invalid variants of ``plan`` at ``positions`` evenly spaced steps."""
    n = len(plan)
    picks = sorted({round(k * (n - 2) / max(1, positions - 1)) for k in range(positions)})
    variants = []
    for i in picks:
        name, *args = words(plan[i])
        other = next(a for a, k in sorted(arities.items()) if k == len(args) and a != name)
        variants += [
            plan[:i] + plan[i + 1 :],
            plan[:i] + [plan[i + 1], plan[i]] + plan[i + 2 :],
            plan[:i] + ["(" + " ".join([other, *args]) + ")"] + plan[i + 1 :],
            plan[:i],
        ]
    return variants


def up_plan(problem, plan: list[str]) -> SequentialPlan:
    return SequentialPlan(
        [
            ActionInstance(problem.action(name), tuple(map(problem.object, args)))
            for name, *args in (words(s.lower()) for s in plan)
        ]
    )


def bench_problem(
    domain: Path, problem: Path, validator, repeat: int, positions: int
) -> list[dict]:
    """Rows (one for the valid plan, one for the invalid ones) for one problem."""
    start = time.perf_counter()
    task = load(domain, problem)
    ours_load = time.perf_counter() - start
    start = time.perf_counter()
    up_problem = PDDLReader().parse_problem(str(domain), str(problem))
    up_load = time.perf_counter() - start

    result = solve(domain, problem, planner="lama-first", timeout=60)
    assert result.solved and result.plan is not None, result.message
    valid = list(result.plan)
    arities = {name: len(a.params) for name, a in task.domain.actions.items()}
    groups = {"valid": [valid], "invalid": corruptions(valid, arities, positions)}
    rows = []
    for kind, plans in groups.items():
        ours = theirs = 0.0
        for plan in plans:
            sequential = up_plan(up_problem, plan)
            verdict = validate(task, plan).valid
            assert verdict == bool(validator.validate(up_problem, sequential).status)
            assert verdict == (kind == "valid")
            ours += best(partial(validate, task, plan), repeat, gc_off=True)
            theirs += best(partial(validator.validate, up_problem, sequential), repeat, gc_off=True)
        rows.append(
            {
                "problem": str(problem.relative_to(DATA)),
                "steps": len(valid),
                "kind": kind,
                "plans": len(plans),
                "ours_load_ms": ours_load * 1e3,
                "up_load_ms": up_load * 1e3,
                "ours_us_per_plan": ours / len(plans) * 1e6,
                "up_us_per_plan": theirs / len(plans) * 1e6,
                "ratio": theirs / ours,
            }
        )
    return rows


def markdown(rows: list[dict], total_ratio: float) -> str:
    lines = [
        "| problem | steps | plans | ours parse+ground ms | UP parse ms | ours µs/plan "
        "| UP µs/plan | UP / ours |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['problem']} ({r['kind']}) | {r['steps']} | {r['plans']} "
            f"| {r['ours_load_ms']:.1f} | {r['up_load_ms']:.1f} "
            f"| {r['ours_us_per_plan']:.1f} | {r['up_us_per_plan']:.1f} "
            f"| {r['ratio']:.0f}x |"
        )
    lines.append(
        f"| **all plans** | | {sum(r['plans'] for r in rows)} | | | | | **{total_ratio:.0f}x** |"
    )
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed calls per plan (best kept)")
    parser.add_argument(
        "--positions",
        type=int,
        default=5,
        help="corruption positions per plan (4 invalid plans each)",
    )
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    args = parser.parse_args(argv)
    get_environment().credits_stream = None
    with SequentialPlanValidator() as validator:
        rows = [
            row
            for domain, problem in PROBLEMS
            for row in bench_problem(
                DATA / domain, DATA / problem, validator, args.repeat, args.positions
            )
        ]
    ours = sum(r["ours_us_per_plan"] * r["plans"] for r in rows)
    theirs = sum(r["up_us_per_plan"] * r["plans"] for r in rows)
    print(
        f"validate vs unified-planning {unified_planning.__version__} "
        f"SequentialPlanValidator, best of {args.repeat}, Python {platform.python_version()}\n"
    )
    print(markdown(rows, theirs / ours))
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "repeat": args.repeat,
                    "unified_planning": unified_planning.__version__,
                    "python": platform.python_version(),
                    "rows": rows,
                    "ratio": theirs / ours,
                },
                indent=2,
            )
        )


if __name__ == "__main__":
    main()
