"""Delete-relaxation heuristics over a grounded task: h_add and h_FF.

:class:`RelaxedTask` compiles a :class:`~planloop.pddl.grounding.Task` once into
relaxed operators over nodes (the fact ids, then one node per disjunction and one for
the goal) and then evaluates any state with a generalized Dijkstra over those nodes.

The relaxation ignores delete effects and treats every negative condition as true: a
negated atom, or a ``not`` around a compound (after grounding, ``imply`` is such a
disjunction). A disjunction costs its cheapest disjunct (it is a node that each
disjunct reaches with a free operator), a conjunction the sum of its parts (h_add).
A conditional effect is an operator of its own whose precondition is the action's
and the effect's condition together; h_FF counts an action once however many of its
effects the relaxed plan uses. Each real state satisfies the relaxed conditions that
its original conditions satisfy, and facts only accumulate in the relaxation, so a
goal that is relaxed-unreachable from a state (h = ``math.inf``) is unreachable from
that state in the task itself: a cheap proof that no plan exists. Costs are unit.
"""

from __future__ import annotations

import copy
import heapq
import math

from . import conditions as cond
from .ground_action import GroundAction, bits
from .grounding import Task

INF = math.inf


class RelaxedTask:
    """The delete relaxation of ``task``, compiled once; evaluate states with
    :meth:`h_add`, :meth:`h_ff` and :meth:`relaxed_plan`."""

    def __init__(self, task: Task):
        self.actions: list[GroundAction] = list(task.actions)
        self.facts = self.nodes = len(task.facts)  # facts are nodes 0..facts-1
        self.pre: list[tuple[int, ...]] = []  # per operator: the nodes it needs
        self.eff: list[tuple[int, ...]] = []  # per operator: the nodes it reaches
        self.cost: list[int] = []  # 1 for an action's operator, 0 for a disjunction's
        self.action_of: list[int | None] = []  # the index of the action, or None
        self._disjunctions: dict[tuple, int] = {}
        for index, action in enumerate(self.actions):
            self._add_action(index, action)
        self._actions_end = (len(self.pre), self.nodes, dict(self._disjunctions))
        self._add_goal(task)

    def fits(self, task: Task) -> bool:
        """Whether ``task`` has this relaxation's actions and facts (goals aside)."""
        return task.actions == self.actions and len(task.facts) == self.facts

    def with_goal(self, task: Task) -> RelaxedTask:
        """The relaxation of ``task``, which has this one's actions and facts and another
        goal, without compiling the actions again."""
        if not self.fits(task):
            raise ValueError("with_goal needs a task with the same actions and facts")
        relaxed = copy.copy(self)
        ops, relaxed.nodes, disjunctions = self._actions_end
        relaxed.pre, relaxed.eff = self.pre[:ops], self.eff[:ops]
        relaxed.cost, relaxed.action_of = self.cost[:ops], self.action_of[:ops]
        relaxed._disjunctions = dict(disjunctions)
        relaxed._add_goal(task)
        return relaxed

    def _add_goal(self, task: Task) -> None:
        """The goal's operator, then the indexes over every operator."""
        goal = self._requirements(task.goal)
        self.goal: int | None = None  # None: the relaxed goal can never hold
        if goal is not None:
            self.goal = self._new_node()
            self._add_operator(goal, (self.goal,), 0, None)
        self.needed_by: list[list[int]] = [[] for _ in range(self.nodes)]
        for op, nodes in enumerate(self.pre):
            for node in nodes:
                self.needed_by[node].append(op)
        self.free_ops = [op for op, nodes in enumerate(self.pre) if not nodes]
        self.pre_count = [len(nodes) for nodes in self.pre]
        self.relevant = sum(1 << f for f in range(self.facts) if self.needed_by[f])

    # -- compilation -----------------------------------------------------------------
    def _add_action(self, index: int, action: GroundAction) -> None:
        pre = self._requirements(action.precondition)
        if pre is None:
            return
        if action.add:
            self._add_operator(pre, bits(action.add), 1, index)
        for _, condition, add, _ in action.conditional:
            extra = self._requirements(condition) if add else None
            if extra is not None:
                self._add_operator(pre + extra, bits(add), 1, index)

    def _add_operator(self, pre, eff, cost: int, action: int | None) -> None:
        self.pre.append(tuple(dict.fromkeys(pre)))
        self.eff.append(tuple(eff))
        self.cost.append(cost)
        self.action_of.append(action)

    def _new_node(self) -> int:
        self.nodes += 1
        return self.nodes - 1

    def _requirements(self, c: cond.Condition) -> list[int] | None:
        """The nodes that relax condition ``c`` (all needed), or None if it never holds."""
        if c is True:
            return []
        if c is False:
            return None
        kind = c[0]
        if kind == "atom":
            return [c[1]]
        if kind == "not":
            return []
        parts = [self._requirements(part) for part in c[1]]
        if kind == "and":
            met = [part for part in parts if part is not None]
            return None if len(met) < len(parts) else [n for part in met for n in part]
        options = [part for part in parts if part is not None]
        if not options:
            return None
        if [] in options:
            return []
        if len(options) == 1:
            return options[0]
        node = self._disjunctions.get(c)
        if node is None:
            node = self._disjunctions[c] = self._new_node()
            for option in options:
                self._add_operator(option, (node,), 0, None)
        return [node]

    # -- evaluation ------------------------------------------------------------------
    def h_add(self, state: int) -> float:
        """The additive heuristic of ``state``: ``math.inf`` if the goal is
        relaxed-unreachable."""
        return self._explore(state)[0]

    def h_ff(self, state: int) -> float:
        """The FF heuristic of ``state`` (the size of the relaxed plan that h_add's best
        supporters give): ``math.inf`` if the goal is relaxed-unreachable."""
        plan = self.relaxed_plan(state)
        return INF if plan is None else len(plan)

    def relaxed_plan(self, state: int) -> list[GroundAction] | None:
        """The actions of a relaxed plan from ``state`` in the order found (goal first),
        or None if the goal is relaxed-unreachable."""
        value, support = self._explore(state)
        if value == INF or self.goal is None:  # (no goal: value is INF)
            return None
        actions: dict[int, None] = {}  # an ordered set
        seen: set[int] = set()
        stack = [self.goal]
        pre, action_of = self.pre, self.action_of
        while stack:
            node = stack.pop()
            if node in seen or (node < self.facts and state >> node & 1):
                continue
            seen.add(node)
            op = support[node]
            if (index := action_of[op]) is not None:
                actions[index] = None
            stack.extend(pre[op])
        return [self.actions[i] for i in actions]

    def _explore(self, state: int) -> tuple[float, dict[int, int]]:
        """(h_add of the goal, the best supporting operator of each node reached)."""
        goal = self.goal
        if goal is None:
            return INF, {}
        best = {}
        support: dict[int, int] = {}
        heap = []
        rest = state & self.relevant
        while rest:
            low = rest & -rest
            rest ^= low
            node = low.bit_length() - 1
            best[node] = 0
            heap.append((0, node))
        count = self.pre_count[:]
        total = [0] * len(count)
        eff, cost, needed_by = self.eff, self.cost, self.needed_by
        for op in self.free_ops:
            for node in eff[op]:
                if cost[op] < best.get(node, INF):
                    best[node] = cost[op]
                    support[node] = op
                    heap.append((cost[op], node))
        heapq.heapify(heap)
        pop, push = heapq.heappop, heapq.heappush
        while heap:
            value, node = pop(heap)
            if value > best[node]:
                continue
            if node == goal:
                return value, support
            for op in needed_by[node]:
                total[op] += value
                count[op] -= 1
                if count[op] == 0:
                    reached = total[op] + cost[op]
                    for target in eff[op]:
                        if reached < best.get(target, INF):
                            best[target] = reached
                            support[target] = op
                            push(heap, (reached, target))
        return INF, support
