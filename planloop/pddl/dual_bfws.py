"""DUAL-BFWS as the PDDLego+ authors ran it (planning.domains' ``dual-bfws-ffparser``:
nirlipo/BFWS-public ``ff-version/src/main.cxx`` over LAPKT and its copy of FF), its
choices among equally good nodes included.

- **Operator order** (:func:`ff_order`): FF's reachability fix point
  (``inst_final.c``, ``perform_reachability_analysis``) sweeps its action templates,
  which ``inst_easy.c`` prepends as it instantiates (so the last instantiated comes
  first), and takes each template whose preconditions are reached, prepending it to the
  action list: the actions end in the reverse of the order the sweeps took them
  (:func:`ff_order`). Planloop's grounding enumerates parameters as FF does only
  approximately, and the match tree below walks the sweeps' own order (the reverse of
  :func:`ff_order`), which agrees with the authors' recorded plans more often (on a
  seeded sample of 300 pairs of the developers' half: same whole command list on 97.5%
  of ALFWorld calls against 92.5% in :func:`ff_order`'s direction).
- **Successor order** (:func:`successor_ranks`): LAPKT's ``applicable_set_v2`` walks its
  match tree (``match_tree.cxx``): at each switch node the actions whose preconditions
  are all decided come first, then those requiring the switch fact (the one most
  preconditions name, the first to reach that count winning), then the others. An
  action's place in that walk does not depend on the state, so it is a rank.
- **Preconditions and effects** as FF passes them on: facts of predicates no action
  adds or deletes are no preconditions (FF compiles them away), and an add that is a
  precondition is no add (``inst_final.c``, building ``gef_conn``).
- **#g** (:class:`_GoalCount`): LAPKT's landmark count over the goals alone
  (``landmark_count.hxx``, ``landmark_graph_generator.hxx`` with ``set_only_goals``):
  goal p is ordered before goal q when every action adding p deletes q (and not both
  ways); a goal counts once while not consumed and once more for each ordering edge
  into it; a goal is consumed when the initial state holds it or an action adds it,
  every goal ordered before it being consumed, and unconsumed when an action deletes
  it (``landmark_graph_manager.hxx``).
- **1-BFWS** (``bfws_2h.hxx`` with novelty pruning at 1): best first on (#g, g) over
  nodes novel in their (#g, #r) partition, the open list a ``std::priority_queue``;
  a node is goal-tested, then duplicate-checked, when popped.
- **The second phase** where 1-BFWS prunes itself out: their BFWS(novelty, landmarks,
  h_add) is not reproduced; planloop's greedy best-first search with h_FF
  (:func:`planloop.pddl.search.greedy_best_first`) answers instead.
"""

from __future__ import annotations

import time

from . import conditions as cond
from .deadline import Check, SearchTimeout
from .grounding import GroundAction, Task
from .heuristics import RelaxedTask
from .search import StdHeap, greedy_best_first


def ff_order(task: Task) -> list[GroundAction]:
    """``task``'s actions in the order FF hands them to LAPKT (see the module's text)."""
    templates = list(reversed(task.actions))  # inst_easy.c prepends each template
    reached = task.init
    taken: list[GroundAction] = []
    done = [False] * len(templates)
    fixpoint = False
    while not fixpoint:
        fixpoint = True
        for i, action in enumerate(templates):
            if done[i] or action.pre_pos & ~reached:
                continue
            done[i] = True
            taken.append(action)
            gained = (action.add | _cond_adds(action)) & ~reached
            if gained:
                reached |= gained
                fixpoint = False
    return taken[::-1]  # each taken action is prepended to gactions


def _fluent_predicates(task: Task) -> set:
    """The predicates some action adds or deletes (FF's non-inertia predicates)."""
    names = set()
    for action in task.actions:
        for fact in (*action.adds, *action.deletes):
            names.add(task.facts[fact].predicate)
        for _, _, add, delete in action.conditional:
            for fact in _bits(add | delete):
                names.add(task.facts[fact].predicate)
    return names


def _preconditions(task: Task, actions: list[GroundAction]) -> list[tuple[int, ...]]:
    """Each action's precondition facts as FF lists them: no inertia facts; a negative
    literal as a fact of its own (FF's NOT- predicates)."""
    fluent = _fluent_predicates(task)
    out = []
    for action in actions:
        pre = [f for f in action.pre if task.facts[f].predicate in fluent]
        pre += [-1 - f for f in action.pre_not]
        out.append(tuple(dict.fromkeys(pre)))
    return out


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
    """LAPKT's landmark count over the goal facts (see the module's text), for goals
    that are a conjunction of literals; negative goal literals count while unmet."""

    def __init__(self, task: Task, actions: list[GroundAction]):
        masks = cond.literal_masks(task.goal)
        self.simple = masks is not None and not masks[2]
        self.goal_test = task.is_goal
        if masks is None or masks[2]:
            return
        pos, neg, _ = masks
        self.neg = neg
        goals = list(_bits(pos))
        self.goals = goals
        before: dict[int, int] = {g: 0 for g in goals}  # goal -> the goals ordered before it
        for i, p in enumerate(goals):
            for q in goals[i + 1 :]:
                p_kills_q = _all_adders_delete(actions, p, q)
                q_kills_p = _all_adders_delete(actions, q, p)
                if p_kills_q and q_kills_p:
                    continue
                if p_kills_q:
                    before[q] |= 1 << p
                if q_kills_p:
                    before[p] |= 1 << q
        self.before = before
        self.goal_mask = pos
        self.required_by = {g: sum(1 for h in goals if before[h] >> g & 1) for g in goals}

    def root(self, state: int) -> int:
        """The goals consumed in the initial state (its facts in index order)."""
        consumed = 0
        for g in self.goals:
            if state >> g & 1 and not self.before[g] & ~consumed:
                consumed |= 1 << g
        return consumed

    def step(self, consumed: int, action: GroundAction, adds: int, parent_state: int) -> int:
        """The goals consumed after ``action`` (FF's adds ``adds``) from ``consumed``."""
        add = adds & self.goal_mask
        for g in _bits(add & ~consumed):
            if not self.before[g] & ~consumed:
                consumed |= 1 << g
        delete = action.delete & ~adds
        for test, _, cadd, cdel in action.conditional:
            if test(parent_state):
                for g in _bits(cadd & self.goal_mask & ~consumed):
                    if not self.before[g] & ~consumed:
                        consumed |= 1 << g
                delete |= cdel
        return consumed & ~(delete & self.goal_mask)

    def value(self, consumed: int, state: int) -> int:
        if not self.simple:
            return 0 if self.goal_test(state) else 1
        h = 0
        for g in self.goals:
            if not consumed >> g & 1:
                h += 1
        for g in self.goals:  # each ordering edge g -> h counts while h is unconsumed
            for h_goal in self.goals:
                if self.before[h_goal] >> g & 1 and not consumed >> h_goal & 1:
                    h += 1
        return h + (self.neg & state).bit_count()


def _all_adders_delete(actions: list[GroundAction], p: int, q: int) -> bool:
    for action in actions:
        if (action.add | _cond_adds(action)) >> p & 1 and not action.delete >> q & 1:
            return False
    return True


def dual_bfws(
    task: Task,
    timeout: float | None = None,
    check: Check | None = None,
) -> list[GroundAction] | None:
    """A plan as DUAL-BFWS finds it: 1-BFWS, then (where it prunes itself out) greedy
    best-first search with h_FF; None when the task has no plan. Raises SearchTimeout."""
    deadline = None if timeout is None else time.monotonic() + timeout
    relaxed = RelaxedTask(task)
    plan = one_bfws(task, deadline, relaxed, check)
    if plan is not None:
        return plan
    remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
    return greedy_best_first(task, remaining, relaxed)


def one_bfws(
    task: Task,
    deadline: float | None,
    relaxed: RelaxedTask,
    check: Check | None = None,
) -> list[GroundAction] | None:
    """1-BFWS as ``bfws_2h.hxx`` runs it (see the module's text), or None when its
    pruning leaves no plan."""
    actions = ff_order(task)[::-1]  # see the module's text: the order measured closer
    precs = _preconditions(task, actions)
    rank = {id(a): r for a, r in zip(actions, successor_ranks(precs), strict=True)}
    adds = {id(a): a.add & ~a.pre_pos for a in actions}
    counter = _GoalCount(task, actions)
    relevant = _relevant_facts(relaxed, task.init)
    if relevant is None:
        return None
    consumed = counter.root(task.init) if counter.simple else 0
    h = counter.value(consumed, task.init)
    # a node: (state, g, #g, parent node, action, relevant facts, those added since, consumed)
    root = (task.init, 0, h, None, None, relevant, 0, consumed)
    held = {(h, 0): task.init}
    frontier = StdHeap()
    frontier.push((h, 0), root)
    closed: dict[int, int] = {}
    expanded = 0
    while frontier:
        node = frontier.pop()
        state, g, goals, parent, _, relevant, added, consumed = node
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
        if deadline is not None and time.monotonic() > deadline:
            raise SearchTimeout()
        if parent is not None and goals < parent[2]:
            relevant = _relevant_facts(relaxed, state)
            if relevant is None:  # a dead end
                continue
            added = 0
        for action in sorted(task.applicable(state), key=lambda a: rank.get(id(a), 0)):
            child = action.apply(state)
            gain = adds.get(id(action))
            if gain is None:
                gain = adds[id(action)] = action.add & ~action.pre_pos
            if counter.simple:
                child_consumed = counter.step(consumed, action, gain, state)
            else:
                child_consumed = 0
            child_goals = counter.value(child_consumed, child)
            child_added = added | ((gain | _cond_adds(action)) & relevant)
            partition = (child_goals, child_added.bit_count())
            before = held.get(partition, 0)
            if child & ~before:  # novel
                held[partition] = before | child
                frontier.push(
                    (child_goals, g + 1),
                    (
                        child,
                        g + 1,
                        child_goals,
                        node,
                        action,
                        relevant,
                        child_added,
                        child_consumed,
                    ),
                )
    return None


def _relevant_facts(relaxed: RelaxedTask, state: int) -> int | None:
    """The facts FF's adds of a relaxed plan's actions from ``state`` hold (an add that
    is a precondition is none); None at a dead end."""
    plan = relaxed.relaxed_plan(state)
    if plan is None:
        return None
    facts = 0
    for action in plan:
        facts |= (action.add & ~action.pre_pos) | _cond_adds(action)
    return facts


def _cond_adds(action: GroundAction) -> int:
    out = 0
    for _, _, add, _ in action.conditional:
        out |= add
    return out


def _bits(mask: int):
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low
