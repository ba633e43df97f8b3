"""Exact search in Python over a grounded task: breadth-first and A*.

For small tasks, with no subprocess. Both return optimal plans for unit costs; A*
uses the goal-count heuristic divided by the most goal facts one action adds, which
is admissible for conjunctive goals (and 0 otherwise).
"""

from __future__ import annotations

import heapq
import time
from collections import deque

from . import conditions as cond
from .grounding import GroundAction, Task


class SearchTimeout(Exception):
    """The search ran out of time."""


def _plan(parents: dict, state: int) -> list[GroundAction]:
    plan = []
    while parents[state] is not None:
        state, action = parents[state]
        plan.append(action)
    return plan[::-1]


def _deadline_check(deadline: float | None, expanded: int) -> None:
    if deadline is not None and expanded % 512 == 0 and time.monotonic() > deadline:
        raise SearchTimeout()


def breadth_first(task: Task, timeout: float | None = None) -> list[GroundAction] | None:
    """A shortest plan, or None when the task has no plan. Raises SearchTimeout."""
    deadline = None if timeout is None else time.monotonic() + timeout
    parents: dict[int, tuple | None] = {task.init: None}
    if task.is_goal(task.init):
        return []
    frontier = deque([task.init])
    expanded = 0
    while frontier:
        state = frontier.popleft()
        expanded += 1
        _deadline_check(deadline, expanded)
        for action in task.applicable(state):
            child = action.apply(state)
            if child not in parents:
                parents[child] = (state, action)
                if task.is_goal(child):
                    return _plan(parents, child)
                frontier.append(child)
    return None


def astar(task: Task, timeout: float | None = None) -> list[GroundAction] | None:
    """An optimal plan by A* with an admissible goal-count heuristic."""
    deadline = None if timeout is None else time.monotonic() + timeout
    heuristic = _goal_count(task)
    parents: dict[int, tuple | None] = {task.init: None}
    best_g = {task.init: 0}
    frontier = [(heuristic(task.init), 0, 0, task.init)]
    tie = 0
    expanded = 0
    while frontier:
        _, g, _, state = heapq.heappop(frontier)
        if g > best_g[state]:
            continue
        if task.is_goal(state):
            return _plan(parents, state)
        expanded += 1
        _deadline_check(deadline, expanded)
        for action in task.applicable(state):
            child = action.apply(state)
            if g + 1 < best_g.get(child, g + 2):
                best_g[child] = g + 1
                parents[child] = (state, action)
                tie += 1
                heapq.heappush(frontier, (g + 1 + heuristic(child), g + 1, tie, child))
    return None


def _goal_count(task: Task):
    masks = cond.literal_masks(task.goal)
    if masks is None or masks[2]:
        return lambda state: 0
    pos, neg, _ = masks
    most = max([bin((a.add | _cond_adds(a)) & pos).count("1")
                + bin((a.delete | _cond_deletes(a)) & neg).count("1")
                for a in task.actions] + [1])
    return lambda state: -(-(bin(pos & ~state).count("1") + bin(neg & state).count("1")) // most)


def _cond_adds(action: GroundAction) -> int:
    out = 0
    for _, _, add, _ in action.conditional:
        out |= add
    return out


def _cond_deletes(action: GroundAction) -> int:
    out = 0
    for _, _, _, delete in action.conditional:
        out |= delete
    return out
