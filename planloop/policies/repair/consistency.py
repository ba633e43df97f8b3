"""Consistency check: the static screening of a translated plan, before any simulation.

Three checks, each sound (what it rejects cannot be a valid plan), all problems of all
steps reported:

- ``names``: every step names an action of the domain, with its number of arguments,
  each an object of the task of the parameter's type (:meth:`Task.lookup_problems`);
- ``invariants``: no step needs two facts together that no reachable state has (a
  mutex proved on the lifted domain, :func:`planloop.pddl.invariants.mutex`);
- ``reachability``: every step's action can apply in some state the delete relaxation
  reaches (:func:`planloop.pddl.landmarks.relaxed_levels`), and each goal fact holds
  initially or is added by a step of the plan (the order of the steps is the step-wise
  simulation's to judge).

The second and third run on a plan that passes the first.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from itertools import combinations
from typing import Literal

from ...pddl import Atom, Step, Task
from ...pddl.conditions import literal_masks
from ...pddl.ground_action import GroundAction, bits
from ...pddl.invariants import mutex
from ...pddl.landmarks import relaxed_levels

IssueKind = Literal[
    "empty",
    "unknown_action",
    "arity",
    "unknown_object",
    "type",
    "invariant",
    "unreachable",
    "goal_unreachable",
]
Check = Literal["names", "invariants", "reachability"]
CHECK_OF: dict[str, Check] = {
    "empty": "names",
    "unknown_action": "names",
    "arity": "names",
    "unknown_object": "names",
    "type": "names",
    "invariant": "invariants",
    "unreachable": "reachability",
    "goal_unreachable": "reachability",
}  # issue kind -> the check that finds it
CHECKS: tuple[Check, ...] = ("names", "invariants", "reachability")


@dataclass(frozen=True)
class Issue:
    step: int  # 1-based; 0 for the plan as a whole
    kind: IssueKind
    message: str

    @property
    def check(self) -> Check:
        return CHECK_OF[self.kind]

    def to_json(self) -> dict:
        return {**asdict(self), "check": self.check}


def check_consistency(task: Task, steps: tuple[Step, ...]) -> list[Issue]:
    """The plan's issues, by the checks of the module's docstring."""
    if not steps:
        return [Issue(0, "empty", "the reply holds no plan step")]
    named = [
        Issue(number, kind, f"{step}: {message}")  # type: ignore[arg-type]  # lookup's kinds
        for number, step in enumerate(steps, start=1)
        for kind, message in task.lookup_problems(step.name, step.args)
    ]
    if named:
        return named
    actions = [task.action(step.name, step.args) for step in steps]
    return _invariants(task, actions) + _reachability(task, actions)


def _invariants(task: Task, actions: list[GroundAction]) -> list[Issue]:
    init = frozenset(task.problem.init)
    proved: dict[tuple[tuple[bool, Atom], tuple[bool, Atom]], bool] = {}
    issues = []
    for number, action in enumerate(actions, start=1):
        needs = [(True, task.facts[f]) for f in action.pre]
        needs += [(False, task.facts[f]) for f in action.pre_not]
        for a, b in combinations(needs, 2):
            if (a, b) not in proved:
                proved[a, b] = mutex(task.domain, init, a, b)
            if proved[a, b]:
                issues.append(
                    Issue(
                        number,
                        "invariant",
                        f"{action.text} needs {_literal(a)} and {_literal(b)} together, "
                        "which no reachable state has",
                    )
                )
    return issues


def _reachability(task: Task, actions: list[GroundAction]) -> list[Issue]:
    level, usable = relaxed_levels(task, task.init)
    reachable = {(a.name, a.args) for a in usable}
    issues, added = [], task.init
    for number, action in enumerate(actions, start=1):
        if (action.name, action.args) not in reachable:
            never = action.pre_pos & ~sum(1 << f for f in level)
            issues.append(
                Issue(
                    number,
                    "unreachable",
                    f"{action.text} can never apply: no sequence of actions makes "
                    f"{_facts(task, never)} true",
                )
            )
        added |= action.add
        for _, _, add, _ in action.conditional:
            added |= add
    masks = literal_masks(task.goal)
    missing = (masks[0] if masks else 0) & ~added
    if missing:
        issues.append(
            Issue(
                0,
                "goal_unreachable",
                f"the goal needs {_facts(task, missing)}, which neither the initial state "
                "nor any step of the plan makes true",
            )
        )
    return issues


def _facts(task: Task, mask: int) -> str:
    return " ".join(str(task.facts[f]) for f in bits(mask))


def _literal(literal: tuple[bool, Atom]) -> str:
    positive, atom = literal
    return str(atom) if positive else f"(not {atom})"
