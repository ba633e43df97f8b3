"""Our ``validate`` against unified-planning's ``SequentialPlanValidator`` as a referee.

For each problem a valid plan comes from our breadth-first planner; every drop,
adjacent swap, same-arity rename and truncation of it, plus seeded random step
replacements, must get the same verdict from both validators and, when a step
cannot be applied, the same failing step.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

pytest.importorskip("unified_planning")
from unified_planning.engines import SequentialPlanValidator, ValidationResultStatus  # noqa: E402
from unified_planning.engines.results import FailedValidationReason  # noqa: E402
from unified_planning.io import PDDLReader  # noqa: E402
from unified_planning.plans import ActionInstance, SequentialPlan  # noqa: E402
from unified_planning.shortcuts import get_environment  # noqa: E402

from planloop.pddl import load, solve, validate  # noqa: E402

get_environment().credits_stream = None

DATA = Path(__file__).resolve().parent.parent / "data"
# (domain, problem) under tests/data. The IPC files are upper case: UP 1.3's PDDLReader
# lower-cases names itself (as we do), so both sides read the files unchanged.
PROBLEMS = [
    (
        "planbench/blocksworld/generated_domain.pddl",
        "planbench/blocksworld/generated_basic/instance-3.pddl",
    ),
    (
        "planbench/blocksworld/generated_domain.pddl",
        "planbench/blocksworld/generated_basic/instance-4.pddl",
    ),
    (
        "planbench/mystery/generated_domain.pddl",
        "planbench/mystery/generated_basic/instance-3.pddl",
    ),
    (
        "planbench/mystery/generated_domain.pddl",
        "planbench/mystery/generated_basic/instance-4.pddl",
    ),
    ("ipc2000-blocks/domain.pddl", "ipc2000-blocks/instances/instance-2.pddl"),
    ("ipc2000-blocks/domain.pddl", "ipc2000-blocks/instances/instance-3.pddl"),
    ("ipc2000-blocks/domain.pddl", "ipc2000-blocks/instances/instance-10.pddl"),
]
RANDOM_REPLACEMENTS = 15


def words(step: str) -> list[str]:
    """``"(stack a b)"`` -> ``["stack", "a", "b"]``."""
    return step.strip().strip("()").split()


def corruptions(plan: list[str], arities: dict[str, int], objects: list[str], seed: int):
    """Yield (label, plan): the plan itself, then systematic and seeded random corruptions."""
    yield "valid", plan
    n = len(plan)
    for i in range(n):
        yield f"drop {i + 1}", plan[:i] + plan[i + 1 :]
    for i in range(n - 1):
        yield f"swap {i + 1},{i + 2}", plan[:i] + [plan[i + 1], plan[i]] + plan[i + 2 :]
    for i, step in enumerate(plan):
        name, *args = words(step)
        for other in sorted(a for a, k in arities.items() if k == len(args) and a != name):
            renamed = "(" + " ".join([other, *args]) + ")"
            yield f"rename {i + 1} to {other}", plan[:i] + [renamed] + plan[i + 1 :]
    for k in range(n):
        yield f"truncate to {k}", plan[:k]
    rng = random.Random(seed)
    for _ in range(RANDOM_REPLACEMENTS):
        i = rng.randrange(n)
        name = rng.choice(sorted(arities))
        step = "(" + " ".join([name] + [rng.choice(objects) for _ in range(arities[name])]) + ")"
        yield f"replace {i + 1} by {step}", plan[:i] + [step] + plan[i + 1 :]


def up_plan(problem, plan: list[str]) -> SequentialPlan:
    """The plan as UP action instances, names looked up in lower case."""
    instances = []
    for step in plan:
        name, *args = (w.lower() for w in words(step))
        instances.append(
            ActionInstance(problem.action(name), tuple(problem.object(a) for a in args))
        )
    return SequentialPlan(instances)


def up_verdict(validator, problem, plan: list[str]) -> tuple[str | None, int | None]:
    """(failure, failed_step) in our vocabulary from UP's ValidationResult.

    UP stops at the first inapplicable action and returns ``trace``: the initial
    state plus one state per step it applied, so the failing step's 1-based
    position is ``len(trace)``. We map by position, not by matching
    ``inapplicable_action`` against the plan (a plan may repeat a ground action),
    and check that the instance at that position *is* ``inapplicable_action``.
    """
    sequential = up_plan(problem, plan)
    result = validator.validate(problem, sequential)
    if result.status == ValidationResultStatus.VALID:
        return None, None
    if result.reason == FailedValidationReason.UNSATISFIED_GOALS:
        return "goal", None
    assert result.reason == FailedValidationReason.INAPPLICABLE_ACTION, result
    step = len(result.trace)
    assert sequential.actions[step - 1] is result.inapplicable_action
    return "precondition", step


@pytest.fixture(scope="module")
def validator():
    with SequentialPlanValidator() as engine:
        yield engine


@pytest.mark.slow
@pytest.mark.parametrize("domain,problem", PROBLEMS, ids=[p for _, p in PROBLEMS])
def test_validate_agrees_with_unified_planning(validator, domain, problem):
    domain_path, problem_path = DATA / domain, DATA / problem
    result = solve(domain_path, problem_path, planner="bfs", timeout=30)
    assert result.solved, result.message
    task = load(domain_path, problem_path)
    up_problem = PDDLReader().parse_problem(str(domain_path), str(problem_path))
    arities = {name: len(a.params) for name, a in task.domain.actions.items()}
    objects = sorted(task.objects)
    seen, disagreements = set(), []
    for label, plan in corruptions(list(result.plan), arities, objects, seed=problem):
        ours = validate(task, plan)
        theirs = up_verdict(validator, up_problem, plan)
        assert ours.failure != "bad_action", (label, ours.advice)
        seen.add(ours.failure)
        if (ours.failure, ours.failed_step) != theirs:
            disagreements.append(
                f"{label}: ours {(ours.failure, ours.failed_step)}, UP {theirs}, plan {plan}"
            )
    assert not disagreements, "\n".join(disagreements)
    assert seen == {None, "precondition", "goal"}  # every verdict was exercised
