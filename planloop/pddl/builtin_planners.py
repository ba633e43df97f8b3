"""The in-process planners ``bfs``, ``astar`` and ``gbfs``: the task grounded here, then
searched (:mod:`.search`) within the timeout."""

from __future__ import annotations

import time

from .deadline import SearchTimeout, deadline_check
from .diagnostics import PDDLError
from .grounding import Task, ground
from .model import Domain, Problem
from .plan_result import PlanResult, timed_out
from .search import astar, breadth_first, greedy_best_first
from .source import Limits

BUILTIN_PLANNERS = {"bfs": breadth_first, "astar": astar, "gbfs": greedy_best_first}


def solve_builtin(
    d: Domain, p: Problem, planner: str, timeout: float, start: float, limits: Limits
) -> PlanResult:
    """The built-in ``planner``'s result for the task, grounded within ``limits``, all
    by ``start + timeout``."""
    try:
        task = ground(d, p, limits, deadline_check(start + timeout))
    except PDDLError as exc:
        return PlanResult("invalid_input", None, str(exc), time.monotonic() - start, planner)
    except SearchTimeout:
        return timed_out(planner, "grounding", timeout, start)
    return run_search(task, BUILTIN_PLANNERS[planner], planner, start, timeout)


def run_search(task: Task, search, name: str, start: float, timeout: float) -> PlanResult:
    """Run a built-in ``search(task, timeout=...)`` until ``start + timeout``; its
    PlanResult, named ``name``."""
    remaining = max(0.0, start + timeout - time.monotonic())
    try:
        plan = search(task, timeout=remaining)
    except SearchTimeout:
        return PlanResult(
            "timeout", None, f"no plan within {timeout} s", time.monotonic() - start, name
        )
    seconds = time.monotonic() - start
    if plan is None:
        return PlanResult(
            "unsolvable", None, "search space exhausted: no plan exists", seconds, name
        )
    return PlanResult(
        "solved", tuple(a.text for a in plan), f"plan of {len(plan)} steps", seconds, name
    )
