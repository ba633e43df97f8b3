"""Search in Python over a grounded task, for small tasks, with no subprocess.

Breadth-first and A* return optimal plans for unit costs; A* uses the goal-count
heuristic divided by the most goal facts one action adds, which is admissible for
conjunctive goals (and 0 otherwise). Greedy best-first search returns any plan,
guided by h_FF (:mod:`planloop.pddl.heuristics`).
"""

from __future__ import annotations

import heapq
import math
import time
from collections import deque
from typing import Protocol

from . import conditions as cond
from .deadline import SearchTimeout
from .grounding import GroundAction, Task
from .heuristics import RelaxedTask

BOOST = 1000  # extra turns of the helpful-actions queue at each new best h (as FD's)


def _plan(parents: dict, state: int) -> list[GroundAction]:
    plan = []
    while parents[state] is not None:
        state, action = parents[state]
        plan.append(action)
    return plan[::-1]


def _deadline_check(deadline: float | None, expanded: int, every: int = 512) -> None:
    if deadline is not None and expanded % every == 0 and time.monotonic() > deadline:
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


class RelaxedPlans(Protocol):
    """What the search asks of a relaxation: a :class:`RelaxedTask`, or one wrapped in a
    check (:class:`planloop.pddl.portfolio.Checked`)."""

    def relaxed_plan(self, state: int) -> list[GroundAction] | None: ...


def greedy_best_first(
    task: Task, timeout: float | None = None, relaxed: RelaxedPlans | None = None
) -> list[GroundAction] | None:
    """Any plan, by lazy greedy best-first search with h_FF; None when the task has none.
    Raises SearchTimeout.

    As Fast Downward's ``lazy_greedy([ff], preferred=[ff], boost=1000)``: a state is
    evaluated when it is expanded and its successors wait under its h_FF; those by its
    helpful actions (the relaxed plan's actions applicable in it) wait in a second
    queue too. The queues take turns, and each new best h_FF gives the helpful queue
    ``BOOST`` more turns. Each state is expanded once. A state whose goal is
    relaxed-unreachable is a dead end and is not expanded, so an exhausted search
    proves that no plan exists. ``relaxed`` reuses a compiled :class:`RelaxedTask`.
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    relaxed = relaxed or RelaxedTask(task)
    if task.is_goal(task.init):
        return []
    parents: dict[int, tuple | None] = {}
    queues: tuple[list, list] = ([(0, 0, None, None)], [])  # (h of the parent, tie, parent, action)
    turns = [0, 0]  # the queue with fewer turns taken goes next
    best_h = math.inf
    tie = expanded = 0
    while queues[0] or queues[1]:
        side = 1 if queues[1] and (turns[1] < turns[0] or not queues[0]) else 0
        turns[side] += 1
        _, _, parent, action = heapq.heappop(queues[side])
        state = task.init if parent is None else action.apply(parent)
        if state in parents:
            continue
        parents[state] = None if parent is None else (parent, action)
        if task.is_goal(state):
            return _plan(parents, state)
        expanded += 1
        _deadline_check(deadline, expanded, every=1)
        plan = relaxed.relaxed_plan(state)
        if plan is None:
            continue
        h, helpful = len(plan), set(plan)
        if h < best_h:
            best_h = h
            turns[1] -= BOOST
        for successor in task.applicable(state):
            tie += 1
            heapq.heappush(queues[0], (h, tie, state, successor))
            if successor in helpful:
                heapq.heappush(queues[1], (h, tie, state, successor))
    return None


def _goal_count(task: Task):
    masks = cond.literal_masks(task.goal)
    if masks is None or masks[2]:
        return lambda state: 0
    pos, neg, _ = masks
    most = max(
        [
            bin((a.add | _cond_adds(a)) & pos).count("1")
            + bin((a.delete | _cond_deletes(a)) & neg).count("1")
            for a in task.actions
        ]
        + [1]
    )
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
