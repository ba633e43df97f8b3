"""The relevant fluents of BFWS's #r as LAPKT computes them (``bfws_2h.hxx``,
``set_relplan``): the adds of a relaxed plan made of h_add's best supporters
(``rp_heuristic_bfws.hxx`` over ``h_1.hxx``), its choices among equally good supporters
included.

- **h_add** (:meth:`RelaxedPlans.relevant`): a label-correcting pass, fluents in a
  first-in first-out queue: first the adds of the actions with no precondition, then
  the state's fluents in the state's order; a popped fluent's actions (those it is a
  precondition of) in action order, each updating its adds in order. A fluent's best
  supporter changes when an action reaches it cheaper, or as cheaply with a smaller
  difficulty (the least value among its preconditions, none for no precondition).
- **The relaxed plan**: the goals' best supporters in the goal's order (a goal the state
  holds skipped), then, breadth first, each supporter's preconditions' best supporters,
  an action once. The relevant fluents are the adds of its actions.
"""

from __future__ import annotations

from collections import deque

from .ff_strips import FFStrips

INF = float("inf")


class RelaxedPlans:
    """The relaxed-plan relevant fluents over one FF model."""

    def __init__(self, model: FFStrips):
        self.model = model
        needed_by: dict[int, list[int]] = {}
        for a, pre in enumerate(model.pre):
            for x in dict.fromkeys(pre):
                needed_by.setdefault(x, []).append(a)
        self.needed_by = needed_by
        self.free = [a for a, pre in enumerate(model.pre) if not pre]

    def relevant(self, state: list[int]) -> int | None:
        """The relevant fluents (a bitset) from the state whose fluents are ``state`` in
        LAPKT's order, or None when the goal is relaxed-unreachable (a dead end)."""
        model = self.model
        pre, adds = model.pre, model.adds
        value: dict[int, float] = {}
        difficulty: dict[int, float] = {}
        support: dict[int, int] = {}
        queue: deque[int] = deque()
        queued: set[int] = set()

        def update(x: int, v: float, a: int) -> None:
            old = value.get(x, INF)
            if v > old:
                return
            if v == old:
                d = min((value.get(q, INF) for q in pre[a]), default=INF)
                if d < difficulty.get(x, INF):
                    support[x], difficulty[x] = a, d
                return
            value[x] = v
            if x not in queued:
                queue.append(x)
                queued.add(x)
            support[x] = a
            difficulty[x] = min((value.get(q, INF) for q in pre[a]), default=INF)

        for a in self.free:
            for x in adds[a]:
                update(x, 1.0, a)
        for x in state:
            value[x] = 0.0
            if x not in queued:
                queue.append(x)
                queued.add(x)
        needed_by = self.needed_by
        while queue:
            x = queue.popleft()
            queued.discard(x)
            for a in needed_by.get(x, ()):
                h = 0.0
                for q in pre[a]:
                    h += value.get(q, INF)
                if h == INF:
                    continue
                for y in adds[a]:
                    update(y, 1.0 + h, a)
        if any(g not in value for g in model.goal):
            return None
        holds = set(state)
        chosen: set[int] = set()
        plan: list[int] = []
        pending: deque[int] = deque()
        for g in model.goal:
            if g in holds:
                continue
            a = support[g]
            pending.append(a)
            chosen.add(a)
            plan.append(a)
        while pending:
            a = pending.popleft()
            for q in pre[a]:
                if q in holds:
                    continue
                b = support.get(q)
                if b is None or b in chosen:
                    continue
                pending.append(b)
                chosen.add(b)
                plan.append(b)
        relevant = 0
        for a in plan:
            relevant |= model.add_mask[a]
        return relevant
