"""``PDDL-v0``: any domain with one problem, a list of problems or a folder of them."""

from __future__ import annotations

import os
import re
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

from ..pddl import (
    ActionLookupError,
    Domain,
    Limits,
    Problem,
    RelaxedTask,
    Task,
    ground,
    parse_domain,
    parse_problem,
)
from ..pddl.source import source_path
from . import arguments
from .info import PDDLInfo, action_error, failure_kind, step_info
from .text_env import MAX_OBS, Step, TextEnv
from .view import Outcome, TaskView

GoalDistance = Literal["ff", "add"]
GOAL_DISTANCES: dict[GoalDistance, Callable[[RelaxedTask, int], float]] = {
    "ff": RelaxedTask.h_ff,
    "add": RelaxedTask.h_add,
}
MAX_CACHE = 100_000  # the most grounded tasks cache_size may keep


def check_goal_distance(heuristic: str) -> GoalDistance:
    """``heuristic`` if it names one of :data:`GOAL_DISTANCES`, else a ValueError
    (TypeError)."""
    return arguments.choice("goal_distance", heuristic, tuple(GOAL_DISTANCES))


def problem_sources(problem, name: str = "problem") -> Sequence:
    """A problem argument (see :func:`~.arguments.sources`) as a sequence: a folder's
    ``*.pddl`` files in natural order, a list or other sequence as given, a single path,
    text or :class:`Problem` as one item."""
    problem = arguments.sources(name, problem, Problem)
    if isinstance(problem, (str, os.PathLike)):
        path = source_path(problem)
        if path is not None and path.is_dir():
            files = sorted(path.glob("*.pddl"), key=_natural_key)
            if not files:
                raise ValueError(f"{name}: no .pddl files in {path}")
            return files
    return problem if isinstance(problem, Sequence) and not isinstance(problem, str) else [problem]


def _natural_key(path: Path):
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", path.name)]


class PDDLEnv(TextEnv[PDDLInfo]):
    """A fully observable PDDL task as a text game.

    Observations and actions are strings. ``info`` is a :class:`~.info.PDDLInfo`:
    ``admissible_actions``, ``task``, ``won``, ``feedback``, ``action_error``,
    ``domain_pddl`` and ``problem_pddl`` (as the agent sees them), ``instance``,
    ``domain_description`` when the view describes the domain in words, and
    ``goal_distance`` when ``goal_distance`` names a heuristic (see :meth:`distance`).
    The true task and state are ``self.task`` and ``self.state``. Text is read as
    planners read it, each tolerated form a warning on ``self.domain.warnings`` and the
    task's problem; ``strict=True`` refuses those forms (see
    :mod:`planloop.pddl.reader`). Reading and grounding stay within ``limits`` (a
    :class:`~planloop.pddl.Limits` or a dict of its fields); a task past one is a
    ValueError that names the field to raise.
    """

    def __init__(
        self,
        domain,
        problem,
        obs_format: str = "text",
        view: TaskView | None = None,
        render_mode: str | None = None,
        cache_size: int = 64,
        max_obs_length: int = MAX_OBS,
        goal_distance: str | None = None,
        strict: bool = False,
        limits: Limits | dict | None = None,
    ):
        super().__init__(render_mode, max_obs_length)
        self.goal_distance = arguments.choice(
            "goal_distance", goal_distance, tuple(GOAL_DISTANCES), optional=True
        )
        self.strict = arguments.boolean("strict", strict)
        self.limits = arguments.limits(limits)
        arguments.source("domain", domain, Domain)
        self.domain: Domain = (
            domain if isinstance(domain, Domain) else parse_domain(domain, self.limits, self.strict)
        )
        self.problems = problem_sources(problem)
        first = self.problems[0] if len(self.problems) else None
        if isinstance(first, (str, os.PathLike)):  # a broken file is an error at make
            parse_problem(first, self.domain, self.limits, self.strict)
        self.view = arguments.instance_of(
            "view", view, TaskView, "a TaskView", optional=True
        ) or TaskView(obs_format=obs_format)
        self._tasks: dict[int, Task] = {}
        # Task -> its RelaxedTask, while it lives
        self._relaxed: weakref.WeakKeyDictionary[Task, RelaxedTask] = weakref.WeakKeyDictionary()
        self._cache_size = arguments.integer("cache_size", cache_size, 1, MAX_CACHE)
        self.task: Task | None = None
        self.state: int = 0
        self.instance: int = 0
        self._outcome: Outcome | None = None
        self._kept: tuple = (None, None, None, "", {})  # see _episode_texts

    # -- instances -------------------------------------------------------------------
    @property
    def num_instances(self) -> int:
        return len(self.problems)

    def load_instance(self, index: int) -> Task:
        """The grounded task of instance ``index`` (cached)."""
        index = self._check_instance(index)
        task = self._tasks.get(index)
        if task is None:
            source = self.problems[index]
            problem = (
                source
                if not isinstance(source, (str, os.PathLike))
                else parse_problem(source, self.domain, self.limits, self.strict)
            )
            task = ground(self.domain, problem, self.limits)
            if len(self._tasks) >= self._cache_size:
                self._tasks.pop(next(iter(self._tasks)))
            self._tasks[index] = task
        return task

    # -- gymnasium API ---------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed, options=options)
        self.instance = self._choose_instance(options)
        self.task = self.load_instance(self.instance)
        self.state = self.task.init
        self._outcome = None
        return self._begin(*self._observe())

    def _step(self, command: str) -> Step[PDDLInfo]:
        task = self.task
        if task is None:
            raise RuntimeError("call reset() before step()")
        self._outcome = outcome = self._execute(task, command)
        obs, info = self.observe()
        return self._show(obs), float(outcome.won), outcome.won, False, info

    def started(self) -> Task:
        """``self.task``, once :meth:`reset` has set it."""
        if self.task is None:
            raise RuntimeError("call reset() first")
        return self.task

    def _execute(self, task: Task, command: str) -> Outcome:
        action = self.view.known_command(command, task)
        if action is not None and action.applicable(self.state):
            return self._apply(task, command, action)
        try:
            name, args = self.view.read_command(command)
        except ActionLookupError as exc:
            return Outcome(failure_kind(exc.kind), command, message=str(exc))
        except ValueError as exc:
            return Outcome("malformed", command, message=str(exc))
        try:
            action = task.action(name, args)
        except ActionLookupError as exc:
            return Outcome(
                failure_kind(exc.kind), command, message=self.view.rename_message(str(exc))
            )
        if not action.applicable(self.state):
            return Outcome(
                "inapplicable", command, action, unmet=tuple(task.unmet(self.state, action))
            )
        return self._apply(task, command, action)

    def _apply(self, task: Task, command: str, action) -> Outcome:
        self.state = state = action.apply(self.state)
        return Outcome("ok", command, action, "", (), task.is_goal(state))

    def distance(self, heuristic: str = "ff") -> float:
        """The current state's relaxed-plan distance to the goal: h_FF (``"ff"``) or
        h_add (``"add"``), 0 at the goal, ``math.inf`` when the goal is
        relaxed-unreachable (then unreachable)."""
        known = check_goal_distance(heuristic)
        if self.task is None:
            raise RuntimeError("call reset() before distance()")
        relaxed = self._relaxed.get(self.task)
        if relaxed is None:
            relaxed = self._relaxed[self.task] = RelaxedTask(self.task)
        return float(GOAL_DISTANCES[known](relaxed, self.state))

    @property
    def outcome(self) -> Outcome | None:
        """What the last step did (None after a reset)."""
        return self._outcome

    def observe(self) -> tuple[str, PDDLInfo]:
        """The observation and info of the current step, as the view shows them."""
        task, outcome, view = self.started(), self._outcome, self.view
        feedback = None if outcome is None else view.feedback(outcome, task)
        obs = view.observation(task, self.state, feedback)
        if outcome is None or outcome.kind == "ok":
            error = action_error()
        else:
            unmet = [view.unmet(u, task.domain) for u in outcome.unmet]
            error = action_error(outcome.kind, feedback or "", unmet)
        goal, extra = self._episode_texts(view, task)
        if self.goal_distance is not None:
            extra = {**extra, "goal_distance": self.distance(self.goal_distance)}
        info = step_info(
            PDDLInfo,
            view.admissible(task, self.state),
            goal,
            task.is_goal(self.state) if outcome is None else outcome.won,
            feedback or "",
            error,
            extra,
        )
        return obs, info

    def _episode_texts(self, view: TaskView, task: Task) -> tuple[str, dict[str, object]]:
        """The goal in words and the info's keys after ``action_error`` that stay while
        ``view``, ``task`` and the instance do (the task's PDDL, ``instance`` and the
        domain's description), kept for the next step."""
        kept = self._kept
        if kept[0] is not view or kept[1] is not task or kept[2] != self.instance:
            keys: dict[str, object] = {**view.task_pddl(task), "instance": self.instance}
            if view.description is not None:
                keys["domain_description"] = view.description
            kept = self._kept = (view, task, self.instance, view.goal(task), keys)
        return kept[3], kept[4]

    def _observe(self):
        obs, info = self.observe()
        return self._show(obs), info
