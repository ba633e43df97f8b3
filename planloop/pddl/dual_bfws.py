"""DUAL-BFWS as the PDDLego+ authors ran it (planning.domains' ``dual-bfws-ffparser``:
nirlipo/BFWS-public ``ff-version/src/main.cxx`` over LAPKT and its copy of FF), its
choices among equally good nodes included.

- **The model** (:mod:`.ff_strips`): FF's actions in FF's order, its facts (a ``NOT-``
  fluent for each negated fluent predicate's fact) and its precondition, add and
  delete lists, as ``ff_to_aptk.cxx`` hands them to LAPKT.
- **Successor order** (:func:`successor_ranks`): LAPKT's ``applicable_set_v2`` walks its
  match tree (``match_tree.cxx``): at each switch node the actions whose preconditions
  are all decided come first, then those requiring the switch fact (the one most
  preconditions name, the first to reach that count winning), then the others. An
  action's place in that walk does not depend on the state, so it is a rank.
- **#g** (:class:`_GoalCount`): LAPKT's landmark count over the goals alone
  (``landmark_count.hxx``, ``landmark_graph_generator.hxx`` with ``set_only_goals``):
  goal p is ordered before goal q when every action adding p deletes q (and not both
  ways); a goal counts once while not consumed and once more for each ordering edge
  into it; a goal is consumed when the initial state holds it or an action adds it,
  every goal ordered before it being consumed, and unconsumed when an action deletes
  it (``landmark_graph_manager.hxx``).
- **#r**: the relevant fluents a node's path has added since the last node whose #g
  fell below its parent's, where they were computed (:mod:`.lapkt_relaxed`: the adds of
  h_add's relaxed plan, from that node's state in LAPKT's fluent order).
- **1-BFWS** (``bfws_2h.hxx`` with novelty pruning at 1): best first on (#g, g) over
  nodes novel in their (#g, #r) partition (a fluent of its state that no node of the
  partition had), the open list a ``std::priority_queue``; a node is goal-tested, then
  duplicate-checked, when popped.
- **The second phase** where 1-BFWS prunes itself out (and for a task beyond FF's
  model here, :func:`.ff_strips.ff_strips`: conditional effects, too many ways to meet
  a condition): their BFWS(novelty, landmarks, h_add) is not reproduced; planloop's
  greedy best-first search with h_FF (:func:`planloop.pddl.search.greedy_best_first`)
  answers instead.
"""

from __future__ import annotations

import time

from .deadline import Check, SearchTimeout
from .ff_strips import FFStrips, ff_strips
from .grounding import GroundAction, Task
from .heuristics import RelaxedTask
from .lapkt_relaxed import RelaxedPlans
from .search import StdHeap, greedy_best_first


def successor_ranks(precs: list[tuple[int, ...]]) -> list[int]:
    """The rank of each action (given by its preconditions, in LAPKT's action order)
    in the walk of LAPKT's match tree built over them."""
    order: list[int] = []
    # a stack of (action indices, the facts decided on the way); a node's immediate
    # actions are emitted when it is built, then its two children in order
    stack: list[tuple[list[int], frozenset]] = [(list(range(len(precs))), frozenset())]
    root = True
    while stack:
        actions, seen = stack.pop()
        if not actions:
            continue
        if not root and all(seen.issuperset(precs[a]) for a in actions):
            order.extend(actions)  # a leaf
            continue
        root = False
        best = _best_var(actions, seen, precs)
        immediate, requiring, others = [], [], []
        for a in actions:
            if seen.issuperset(precs[a]):
                immediate.append(a)
            elif best in precs[a]:
                requiring.append(a)
            else:
                others.append(a)
        order.extend(immediate)
        below = seen | {best}
        stack.append((others, below))
        stack.append((requiring, below))
    ranks = [0] * len(precs)
    for place, a in enumerate(order):
        ranks[a] = place
    return ranks


def _best_var(actions: list[int], seen: frozenset, precs: list[tuple[int, ...]]):
    """match_tree.cxx's get_best_var: the undecided fact the most preconditions name,
    the first to reach that count winning."""
    count: dict[int, int] = {}
    most, best = 0, 0
    for a in actions:
        for fact in precs[a]:
            n = count[fact] = count.get(fact, 0) + 1
            if n > most and fact not in seen:
                most, best = n, fact
    return best


class _GoalCount:
    """LAPKT's landmark count over the goal fluents (see the module's text)."""

    def __init__(self, model: FFStrips):
        goals = list(dict.fromkeys(model.goal))
        self.goals = goals
        before: dict[int, int] = {g: 0 for g in goals}  # goal -> the goals ordered before it
        for i, p in enumerate(goals):
            for q in goals[i + 1 :]:
                p_kills_q = _all_adders_delete(model, p, q)
                q_kills_p = _all_adders_delete(model, q, p)
                if p_kills_q and q_kills_p:
                    continue
                if p_kills_q:
                    before[q] |= 1 << p
                if q_kills_p:
                    before[p] |= 1 << q
        self.before = before
        self.goal_mask = sum(1 << g for g in goals)
        self.edges_into = {g: before[g].bit_count() for g in goals}

    def root(self, state: int, number: dict[int, int]) -> int:
        """The goals consumed in the initial state (its fluents in number order)."""
        consumed = 0
        for g in sorted(self.goals, key=number.__getitem__):
            if state >> g & 1 and not self.before[g] & ~consumed:
                consumed |= 1 << g
        return consumed

    def step(self, consumed: int, adds: tuple[int, ...], deletes: int) -> int:
        """The goals consumed after an action adding ``adds`` (in its order) and
        deleting ``deletes``."""
        for g in adds:
            if self.goal_mask >> g & 1 and not consumed >> g & 1 and not self.before[g] & ~consumed:
                consumed |= 1 << g
        return consumed & ~deletes

    def value(self, consumed: int) -> int:
        """Each unconsumed goal once, and once more for each ordering edge into it."""
        return sum(1 + self.edges_into[g] for g in self.goals if not consumed >> g & 1)


def _all_adders_delete(model: FFStrips, p: int, q: int) -> bool:
    return all(model.del_mask[a] >> q & 1 for a, add in enumerate(model.add_mask) if add >> p & 1)


def dual_bfws(
    task: Task,
    timeout: float | None = None,
    check: Check | None = None,
) -> list[GroundAction] | None:
    """A plan as DUAL-BFWS finds it: 1-BFWS, then (where it prunes itself out, or the
    task is beyond FF's STRIPS model) greedy best-first search with h_FF; None when the
    task has no plan. Raises SearchTimeout."""
    deadline = None if timeout is None else time.monotonic() + timeout
    model = ff_strips(task)
    plan = None if model is None else one_bfws(task, model, deadline, check)
    if plan is not None:
        return plan
    remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
    return greedy_best_first(task, remaining, RelaxedTask(task))


def one_bfws(
    task: Task,
    model: FFStrips,
    deadline: float | None,
    check: Check | None = None,
) -> list[GroundAction] | None:
    """1-BFWS as ``bfws_2h.hxx`` runs it over FF's model of ``task`` (see the module's
    text), or None when its pruning leaves no plan."""
    copies: dict[int, list[int]] = {}  # a task action -> its model actions (FF's copies)
    for i, step in enumerate(model.actions):
        if step is not None:
            copies.setdefault(id(step), []).append(i)
    reaching_goal = [i for i, a in enumerate(model.actions) if a is None]
    rank = successor_ranks(model.pre)
    pre_mask, add_mask, del_mask = model.pre_mask, model.add_mask, model.del_mask
    counter = _GoalCount(model)
    plans = RelaxedPlans(model)
    relevant = plans.relevant(model.init_vector())
    if relevant is None:
        return None
    consumed = counter.root(model.init, model.number)
    h = counter.value(consumed)
    # a node: (state, g, #g, parent node, action, relevant fluents, those added since,
    # consumed goals)
    root = (model.init, 0, h, None, -1, relevant, 0, consumed)
    held = {(h, 0): model.init}
    frontier = StdHeap()
    frontier.push((h, 0), root)
    closed: dict[int, int] = {}
    while frontier:
        node = frontier.pop()
        state, g, goals, parent, _, relevant, added, consumed = node
        if state & counter.goal_mask == counter.goal_mask:
            return [step for a in _path(node) if (step := model.actions[a]) is not None]
        if closed.get(state, g + 1) <= g:
            continue
        closed[state] = g
        if check is not None:
            check()
        if deadline is not None and time.monotonic() > deadline:
            raise SearchTimeout()
        if parent is not None and goals < parent[2]:
            found = plans.relevant(_vector(model, node))
            if found is None:  # a dead end
                continue
            relevant, added = found, 0
        applicable = [i for i in reaching_goal if not pre_mask[i] & ~state]
        for action in task.applicable(model.task_state(state)):
            applicable += copies.get(id(action), ())
        for a in sorted(applicable, key=rank.__getitem__):
            if pre_mask[a] & ~state:
                continue
            child = (state & ~del_mask[a]) | add_mask[a]
            child_consumed = counter.step(consumed, model.adds[a], del_mask[a])
            child_goals = counter.value(child_consumed)
            child_added = added | (add_mask[a] & relevant)
            partition = (child_goals, child_added.bit_count())
            before = held.get(partition, 0)
            if child & ~before:  # novel
                held[partition] = before | child
                frontier.push(
                    (child_goals, g + 1),
                    (child, g + 1, child_goals, node, a, relevant, child_added, child_consumed),
                )
    return None


def _path(node: tuple) -> list[int]:
    """The actions from the root to ``node``."""
    actions = []
    while node[3] is not None:
        actions.append(node[4])
        node = node[3]
    return actions[::-1]


def _vector(model: FFStrips, node: tuple) -> list[int]:
    """``node``'s state's fluents in LAPKT's order: the initial state's sorted, then
    along the path each action's deletes dropped and its new adds appended in order
    (``State::progress_through``)."""
    vector = model.init_vector()
    for a in _path(node):
        kept = [x for x in vector if not model.del_mask[a] >> x & 1]
        present = set(kept)
        kept += [x for x in model.adds[a] if x not in present]
        vector = kept
    return vector
