"""Plan validation with VAL-style repair advice."""

from __future__ import annotations

from dataclasses import dataclass

from .diagnostics import quote
from .grounding import ActionLookupError, Task, UnmetFact
from .plans import Plan, parse_plan
from .source import Limits


@dataclass(frozen=True)
class PlanReport:
    """The verdict on a plan.

    ``failure`` is None for a valid plan, else ``precondition`` (step
    ``failed_step``, 1-based as VAL counts time, could not be applied),
    ``bad_action`` (the step names no action of the task) or ``goal`` (every step
    applied but the goal does not hold).
    """

    valid: bool
    length: int
    failure: str | None = None
    failed_step: int | None = None
    action: str | None = None
    unmet: tuple[UnmetFact, ...] = ()
    advice: str = "Plan valid"
    final_state: int | None = None

    def __bool__(self) -> bool:
        return self.valid


def _repairs(unmet) -> str:
    return "\n".join(f"(Set {u.atom} to {'true' if u.wanted else 'false'})" for u in unmet)


def validate(task: Task, plan: Plan, limits: Limits | None = None) -> PlanReport:
    """Replay ``plan`` (text, bytes, or a list of commands, steps or ground actions) from
    the initial state.

    Raises :class:`~planloop.pddl.PDDLError` only when the plan cannot be read, or is
    past ``limits`` (by default the task's).
    """
    steps = parse_plan(plan, task.limits if limits is None else limits)
    state = task.init
    for time, step in enumerate(steps, start=1):
        try:
            action = task.action(step.name, step.args)
        except ActionLookupError as exc:
            return PlanReport(
                False,
                len(steps),
                "bad_action",
                time,
                str(step),
                advice=f"Bad plan description!\n{quote(str(step))} at time {time} "
                f"is not an action of the task: {exc}",
                final_state=state,
            )
        if not action.applicable(state):
            unmet = tuple(task.unmet(state, action))
            advice = (
                f"Plan failed because of unsatisfied precondition in:\n{action.text}\n\n"
                f"Plan Repair Advice:\n\n{action.text} has an unsatisfied precondition "
                f"at time {time}\n{_repairs(unmet)}"
            ).rstrip()
            return PlanReport(
                False, len(steps), "precondition", time, action.text, unmet, advice, state
            )
        state = action.apply(state)
    if not task.is_goal(state):
        unmet = tuple(task.unmet_goal(state))
        advice = f"The goal is not satisfied\n\nPlan Repair Advice:\n\n{_repairs(unmet)}".rstrip()
        return PlanReport(False, len(steps), "goal", None, None, unmet, advice, state)
    return PlanReport(True, len(steps), final_state=state)
