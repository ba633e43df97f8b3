"""Search in Python over a grounded task, for small tasks, with no subprocess.

Breadth-first and A* return optimal plans for unit costs; A* uses the goal-count
heuristic divided by the most goal facts one action adds, which is admissible for
conjunctive goals (and 0 otherwise). Greedy best-first search returns any plan,
guided by h_FF (:mod:`planloop.pddl.heuristics`); 1-BFWS (:func:`width_first`) any
plan it finds, chosen as the PDDLego+ authors' planner chooses more often.
"""

from __future__ import annotations

import heapq
import math
import time
from collections import deque
from typing import Protocol

from . import conditions as cond
from .deadline import Check, SearchTimeout
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


def width_first(
    task: Task,
    timeout: float | None = None,
    relaxed: RelaxedTask | None = None,
    check: Check | None = None,
) -> list[GroundAction] | None:
    """A plan by 1-BFWS, the search that LAPKT's DUAL-BFWS (the PDDLego+ authors'
    planner) runs first, or None when its pruning leaves no plan, which proves nothing.
    Raises SearchTimeout; ``check`` is called at each expansion.

    Best-first on (#g, g) over novel states: #g counts the goal literals a state misses
    (1 until it holds, for a goal that is no conjunction of literals); a generated state
    is novel when it holds a fact that no state generated before with its #g and #r
    held, #r counting the facts of a relaxed plan (the initial state's, then one at each
    expanded state where #g fell) that the actions since added; other states are pruned.
    Successors are generated last ground action first (their planner's choices among
    equal moves follow this order more often than the grounding order), equal keys leave
    the open list as from C++'s ``std::priority_queue`` (LAPKT's open list), and a state
    is tested for the goal and for a duplicate when it is expanded.
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    relaxed = relaxed or RelaxedTask(task)
    unmet = _unmet_goals(task)
    relevant = _relevant_facts(relaxed, task.init)
    if relevant is None:
        return None
    # a node: (state, g, #g, parent node, action, relevant facts, those added since)
    root = (task.init, 0, unmet(task.init), None, None, relevant, 0)
    held = {(root[2], 0): task.init}  # (#g, #r) -> the facts its states held
    adds: dict[GroundAction, int] = {}
    frontier = StdHeap()
    frontier.push((root[2], 0), root)
    closed: dict[int, int] = {}
    expanded = 0
    while frontier:
        node = frontier.pop()
        state, g, goals, parent, _, relevant, added = node
        if task.is_goal(state):
            plan = []
            while node[3] is not None:
                plan.append(node[4])
                node = node[3]
            return plan[::-1]
        if closed.get(state, g + 1) <= g:
            continue
        closed[state] = g
        expanded += 1
        if check is not None:
            check()
        _deadline_check(deadline, expanded, every=1)
        if parent is not None and goals < parent[2]:
            relevant = _relevant_facts(relaxed, state)
            if relevant is None:  # a dead end
                continue
            added = 0
        for action in reversed(task.applicable(state)):
            child = action.apply(state)
            child_goals = unmet(child)
            gain = adds.get(action)
            if gain is None:
                gain = adds[action] = action.add | _cond_adds(action)
            child_added = added | (gain & relevant)
            partition = (child_goals, child_added.bit_count())
            before = held.get(partition, 0)
            if child & ~before:  # novel
                held[partition] = before | child
                frontier.push(
                    (child_goals, g + 1),
                    (child, g + 1, child_goals, node, action, relevant, child_added),
                )
    return None


class StdHeap:
    """A binary heap popping the least key, equal keys in the order C++'s
    ``std::priority_queue`` pops them (libstdc++'s ``push_heap`` and ``pop_heap``)."""

    def __init__(self) -> None:
        self._entries: list[tuple] = []

    def __bool__(self) -> bool:
        return bool(self._entries)

    def push(self, key: tuple, item) -> None:
        self._entries.append((key, item))
        self._sift_up(len(self._entries) - 1, (key, item))

    def pop(self):
        entries = self._entries
        top, last = entries[0], entries.pop()
        size = len(entries)
        if size:
            hole = child = 0
            while child < (size - 1) // 2:  # move the hole down to a leaf
                child = 2 * child + 2
                if entries[child - 1][0] < entries[child][0]:
                    child -= 1
                entries[hole], hole = entries[child], child
            if size % 2 == 0 and child == (size - 2) // 2:
                child = 2 * child + 2
                entries[hole], hole = entries[child - 1], child - 1
            self._sift_up(hole, last)
        return top[1]

    def _sift_up(self, hole: int, entry: tuple) -> None:
        entries = self._entries
        parent = (hole - 1) // 2
        while hole > 0 and entry[0] < entries[parent][0]:
            entries[hole], hole = entries[parent], parent
            parent = (hole - 1) // 2
        entries[hole] = entry


def _unmet_goals(task: Task):
    """state -> the number of goal literals it misses (for any other goal, 0 or 1)."""
    masks = cond.literal_masks(task.goal)
    if masks is None or masks[2]:
        return lambda state: 0 if task.is_goal(state) else 1
    pos, neg, _ = masks
    return lambda state: (pos & ~state).bit_count() + (neg & state).bit_count()


def _relevant_facts(relaxed: RelaxedTask, state: int) -> int | None:
    """The facts the actions of a relaxed plan from ``state`` add; None at a dead end."""
    plan = relaxed.relaxed_plan(state)
    if plan is None:
        return None
    facts = 0
    for action in plan:
        facts |= action.add | _cond_adds(action)
    return facts


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
