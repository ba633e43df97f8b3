"""Consistency check: the static screening of a translated plan, before any simulation.

Every step must name an action of the domain, with its number of arguments, each an
object of the task of the parameter's type (the core's :meth:`Task.lookup_problems`).
All problems of all steps are reported.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from ...pddl import Step, Task


@dataclass(frozen=True)
class Issue:
    step: int  # 1-based; 0 for the plan as a whole
    kind: str  # empty / unknown_action / arity / unknown_object / type
    message: str

    def to_json(self) -> dict:
        return asdict(self)


def check_consistency(task: Task, steps: tuple[Step, ...]) -> list[Issue]:
    if not steps:
        return [Issue(0, "empty", "the reply holds no plan step")]
    return [
        Issue(number, kind, f"{step}: {message}")
        for number, step in enumerate(steps, start=1)
        for kind, message in task.lookup_problems(step.name, step.args)
    ]
