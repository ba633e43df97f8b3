"""Consistency check: the static screening of a translated plan, before any simulation.

Every step must name an action of the domain, with its number of arguments, each an
object of the task of the parameter's type. All problems of all steps are reported.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from ...pddl import Step, Task, quote


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
    issues = []
    for number, step in enumerate(steps, start=1):
        schema = task.domain.actions.get(step.name)
        if schema is None:
            issues.append(Issue(number, "unknown_action", f"{step}: no action is named "
                                                          f"{quote(step.name)}"))
            continue
        if len(step.args) != len(schema.params):
            issues.append(Issue(number, "arity", f"{step}: {step.name} takes "
                                                 f"{len(schema.params)} argument(s), "
                                                 f"{len(step.args)} given"))
            continue
        for position, (arg, param) in enumerate(zip(step.args, schema.params), start=1):
            if arg not in task.objects:
                issues.append(Issue(number, "unknown_object", f"{step}: no object is named "
                                                              f"{quote(arg)}"))
            elif not task.domain.is_subtype(task.objects[arg], param.types):
                issues.append(Issue(number, "type", f"{step}: argument {position} must be "
                                                    f"{' or '.join(param.types)}, {quote(arg)} "
                                                    f"is {task.objects[arg]}"))
    return issues
