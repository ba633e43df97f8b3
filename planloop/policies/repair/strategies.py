"""The repair controller: which strategy a failed plan calls for, the feedback it sends,
and when retrying stops paying off.

Chosen by where and how the plan failed, on structure only:

- ``first_step``: step 1 cannot apply; names its unmet facts and the actions
  applicable in the initial state.
- ``precondition_probing``: a later step cannot apply; names the unmet facts and the
  actions that add (or delete) them.
- ``parameter_swap_landmarks``: a later step cannot apply but would with its arguments
  permuted (the swapped step is proposed), or every step applies and the goal does
  not hold (the missing goal facts are named); both inject the task's fact landmarks.
- ``budget_retry``: anything else (a step naming no action of the task, or only a
  valid/invalid verdict when step-wise simulation is off): regenerate with the verdict.

A plan the consistency check rejected for its invariants or reachability gets the
strategy of where it failed (step 1, a later step, the goal), with the check's findings.
:func:`should_stop` is its budget side.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import permutations
from typing import Final, Literal

from ...pddl import ActionLookupError, GroundAction, PlanReport, RelaxedTask, Step, Task
from ...pddl.landmarks import fact_landmarks
from .consistency import Issue

RepairStrategy = Literal[
    "first_step", "precondition_probing", "parameter_swap_landmarks", "budget_retry"
]
FIRST_STEP: Final = "first_step"
PROBING: Final = "precondition_probing"
SWAP_LANDMARKS: Final = "parameter_swap_landmarks"
RETRY: Final = "budget_retry"
MAX_LISTED = 8  # achievers listed per unmet fact
PATIENCE = 2  # attempts in a row without enough gain before the retries stop


@dataclass(frozen=True)
class Repair:
    strategy: RepairStrategy
    feedback: str
    proposal: str | None = None  # the swapped step, for parameter_swap_landmarks


def choose_repair(
    task: Task,
    steps: tuple[Step, ...],
    issues: list[Issue],
    report: PlanReport | None,
    stepwise: bool,
) -> Repair:
    """The repair for a plan that failed ``issues`` (consistency) or else ``report`` (whose
    failure is then ``precondition`` or ``goal``: consistency rules out ``bad_action``)."""
    if issues:
        return _screened(task, issues)
    if not stepwise:
        return Repair(
            RETRY, "The plan is not valid: it does not reach the goal from the initial state."
        )
    assert report is not None  # no issues: the caller validated the plan
    if report.failure == "goal":
        return Repair(
            SWAP_LANDMARKS,
            "Every step of the plan applies, but the goal does not "
            "hold at the end. Goal facts still missing: "
            + _facts(report.unmet)
            + ".\n"
            + _landmarks(task),
        )
    number, state = report.failed_step, report.final_state
    assert number is not None and state is not None  # validate() sets both on a failed step
    action = task.action(steps[number - 1].name, steps[number - 1].args)
    unmet = _facts(report.unmet)
    if number == 1:
        applicable = ", ".join(a.text for a in task.applicable(task.init)) or "none"
        return Repair(
            FIRST_STEP,
            f"Step 1, {action.text}, cannot apply in the initial state; "
            f"missing: {unmet}.\nThe actions applicable in the initial "
            f"state are: {applicable}. The plan must start with one of "
            f"them.",
        )
    before = "step 1" if number == 2 else f"steps 1-{number - 1}"
    where = f"Step {number}, {action.text}, cannot apply after {before}; missing: {unmet}."
    swapped = _swapped(task, state, action)
    if swapped is not None:
        return Repair(
            SWAP_LANDMARKS,
            f"{where}\nWith its arguments swapped, {swapped.text} "
            f"applies at that point.\n{_landmarks(task)}",
            swapped.text,
        )
    probes = "\n".join(f"- {fact}: {_achievers(task, state, fact)}" for fact in report.unmet)
    return Repair(
        PROBING,
        f"{where}\nActions that make each missing fact hold:\n{probes}\n"
        f"Make these facts hold before step {number}, or replace the step.",
    )


def _screened(task: Task, issues: list[Issue]) -> Repair:
    """The repair for a plan the consistency check rejected: a regeneration when a step
    names no action of the task; else targeted by the first issue (a step whose facts
    cannot hold at step 1 or later, or a goal no step reaches), with its achievers."""
    found = "The plan failed the consistency check:\n" + "\n".join(
        f"- {'step ' + str(i.step) + ': ' if i.step else ''}{i.message}" for i in issues
    )
    if any(i.check == "names" for i in issues):
        return Repair(
            RETRY,
            f"{found}\nUse only the actions listed, with their number of arguments, and the "
            "objects of the problem.",
        )
    first = issues[0]
    if first.step == 0:
        return Repair(SWAP_LANDMARKS, f"{found}\n{_landmarks(task)}")
    if first.step == 1:
        applicable = ", ".join(a.text for a in task.applicable(task.init)) or "none"
        return Repair(
            FIRST_STEP,
            f"{found}\nThe actions applicable in the initial state are: {applicable}. "
            "The plan must start with one of them.",
        )
    return Repair(
        PROBING,
        f"{found}\nMake the facts each step needs hold before it, or replace the step.",
    )


def progress(relaxed: RelaxedTask, task: Task, report: PlanReport | None) -> float:
    """How far the plan's executable part got: 1 for a valid plan, else the share of the
    initial state's relaxed distance to the goal (h_FF) that it covered; 0 for a plan
    that failed the consistency check."""
    if report is None:
        return 0.0
    if report.valid:
        return 1.0
    assert report.final_state is not None  # validate() always sets it
    start, left = relaxed.h_ff(task.init), relaxed.h_ff(report.final_state)
    if start in (0, math.inf) or left == math.inf:
        return 0.0
    return max(0.0, 1.0 - left / start)


def should_stop(history: list[float], min_gain: float) -> bool:
    """Budget-adaptive retry: stop when each of the last ``PATIENCE`` attempts raised the
    best progress so far by less than ``min_gain``."""
    if len(history) <= PATIENCE:
        return False
    gains = [max(0.0, p - max(history[:i], default=0.0)) for i, p in enumerate(history)]
    return all(gain < min_gain for gain in gains[-PATIENCE:])


def _swapped(task: Task, state: int, action: GroundAction) -> GroundAction | None:
    """The same action with its arguments permuted, if that applies in ``state``."""
    for args in permutations(action.args):
        if args == action.args:
            continue
        try:
            candidate = task.action(action.name, args)
        except ActionLookupError:
            continue
        if candidate.applicable(state):
            return candidate
    return None


def _achievers(task: Task, state: int, fact) -> str:
    """The ground actions that make ``fact`` (an UnmetFact) hold, applicable ones first."""
    bit = 1 << task.fact_id(fact.atom)
    found = [a for a in task.actions if (a.add if fact.wanted else a.delete) & bit]
    found.sort(key=lambda a: not a.applicable(state))
    shown = ", ".join(a.text for a in found[:MAX_LISTED])
    more = len(found) - MAX_LISTED
    return (shown + (f" and {more} more" if more > 0 else "")) or "no action"


def _landmarks(task: Task) -> str:
    """The landmark facts a plan must make true, those of the initial state left out."""
    needed = [task.facts[f] for f in fact_landmarks(task) if not task.init >> f & 1]
    if not needed:
        return "No fact beyond the initial state is needed by every plan."
    return (
        "Every plan must make these facts true at some point, roughly in this order: "
        + ", ".join(map(str, needed))
        + "."
    )


def _facts(unmet) -> str:
    return ", ".join(map(str, unmet))
