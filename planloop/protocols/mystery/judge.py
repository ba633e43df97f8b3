"""The Mystery study's record of an episode: every plan it tried, replayed by the core's
validator in the names the agent sees, with its failure kind (``parse``: no action read,
or a step naming no action of the task; ``precondition``; ``goal``), the first failing
step, its action and the unmet predicates, and the actions and precondition predicates
of the steps the simulation played (Figures 10 and 11)."""

from __future__ import annotations

from typing import Any, Literal, TypedDict, cast

import gymnasium as gym

from ...pddl import PDDLError, Task, load, parse_command, validate
from ...policies.runner import Episode

FailureKind = Literal["parse", "precondition", "goal"]


class Simulated(TypedDict):
    """The steps of a plan the simulator played (to the failing one, included): their
    ``actions`` and the ``predicates`` of the facts their preconditions test."""

    actions: list[str]
    predicates: list[str]


class PlanVerdict(Simulated):
    """One attempted plan judged: its failure ``kind`` (None when valid), the first
    failing ``step`` (1-based), its ``action`` name, the ``unmet`` predicates (of the
    failing step, or of the goal), the plan's ``length`` and its simulated steps."""

    kind: FailureKind | None
    step: int | None
    action: str | None
    unmet: list[str]
    length: int


def played_plans(episode: Episode) -> list[list[str]]:
    """The actions played between restarts: a restart shows the first observation again,
    while every step's observation opens with its feedback."""
    plans: list[list[str]] = [[]]
    actions = iter(episode.actions)
    for observation in episode.observations[1:]:
        if observation == episode.observations[0]:
            plans.append([])
        else:
            plans[-1].append(next(actions))
    return plans


def attempted_plans(episode: Episode) -> list[list[str]]:
    """Every plan the episode tried: the commands a policy records per attempt in
    ``details["attempts"]`` (``plan`` as a list, or the repair pipeline's
    ``translation["steps"]``), else the plans it played."""
    plans = [_commands(attempt) for attempt in episode.details.get("attempts") or []]
    if plans and all(plan is not None for plan in plans):
        return cast("list[list[str]]", plans)
    return played_plans(episode)


def _commands(attempt: object) -> list[str] | None:
    if not isinstance(attempt, dict):
        return None
    plan = attempt.get("plan")
    steps = (attempt.get("translation") or {}).get("steps")
    return plan if isinstance(plan, list) else steps if isinstance(steps, list) else None


def judge_plan(task: Task, plan: list[str]) -> PlanVerdict:
    """The plan replayed by the validator."""
    verdict = PlanVerdict(
        kind=None, step=None, action=None, unmet=[], length=len(plan), actions=[], predicates=[]
    )
    if not plan:
        return {**verdict, "kind": "parse"}  # nothing in the answer read as an action
    try:
        report = validate(task, plan)
    except PDDLError:
        step = next(i for i, command in enumerate(plan, 1) if not _readable(command))
        return {**verdict, "kind": "parse", "step": step, **_simulated(task, plan[: step - 1])}
    if report.valid:
        return {**verdict, **_simulated(task, plan)}
    if report.failure == "bad_action":
        played = plan[: (report.failed_step or 1) - 1]
        return {**verdict, "kind": "parse", "step": report.failed_step, **_simulated(task, played)}
    readable = _readable(report.action) if report.action else None
    played = plan[: report.failed_step] if report.failed_step else plan
    return {
        **verdict,
        "kind": cast(FailureKind, report.failure),
        "step": report.failed_step,
        "action": readable[0] if readable else None,
        "unmet": sorted({u.atom.predicate for u in report.unmet}),
        **_simulated(task, played),
    }


def _simulated(task: Task, played: list[str]) -> Simulated:
    """The action names of the steps simulated and the predicates their preconditions
    test (one per fact tested, so a predicate tested twice counts twice)."""
    actions = [task.action(*parsed) for parsed in map(_readable, played) if parsed]
    return Simulated(
        actions=[a.name for a in actions],
        predicates=[task.facts[f].predicate for a in actions for f in (*a.pre, *a.pre_not)],
    )


def _readable(command: str) -> tuple[str, tuple[str, ...]] | None:
    try:
        return parse_command(command)
    except ValueError:
        return None


def episode_fields(env: gym.Env, episode: Episode) -> dict[str, Any]:
    """The record: the episode (observations counted, not kept), every attempted plan
    judged (``plans``), their number (``attempts``), the played plan's failure
    (``failure``, ``failed_step``, ``failed_action``, ``unmet``) and the kinds of
    failure met over all attempts (``failure_kinds``)."""
    game: Any = env.unwrapped
    _, info = game.observe()
    task = load(info["domain_pddl"], info["problem_pddl"])
    judged = [judge_plan(task, plan) for plan in attempted_plans(episode)]
    final = judge_plan(task, played_plans(episode)[-1])
    record = episode.to_json()
    record["observations"] = len(record["observations"])
    record.update(
        plans=judged,
        attempts=len(judged),
        failure=None if episode.won else final["kind"],
        failed_step=final["step"],
        failed_action=final["action"],
        unmet=final["unmet"],
        failure_kinds=sorted({j["kind"] for j in [*judged, final] if j["kind"]}),
    )
    return record
