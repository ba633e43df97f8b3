"""DUAL-BFWS as the PDDLego+ authors ran it (planning.domains' ``dual-bfws-ffparser``:
nirlipo/BFWS-public ``ff-version/src/main.cxx`` over LAPKT and its copy of FF), its
choices among equally good nodes included.

- **Operator order** (:func:`ff_order`): FF's easy templates (:func:`_template_keys`:
  ``inst_easy.c`` over ``parse.c``'s lists, which its parser builds by prepending, so
  that objects are met last declared first) swept by FF's reachability fix point
  (``inst_final.c``, ``perform_reachability_analysis``), each template whose
  preconditions are reached taken at once and prepended to the action list, which
  ``ff_to_aptk.cxx`` hands to LAPKT in that order.
- **Successor order** (:func:`successor_ranks`): LAPKT's ``applicable_set_v2`` walks its
  match tree (``match_tree.cxx``): at each switch node the actions whose preconditions
  are all decided come first, then those requiring the switch fact (the one most
  preconditions name, the first to reach that count winning), then the others. An
  action's place in that walk does not depend on the state, so it is a rank.
- **Preconditions and effects** as FF passes them on: facts of predicates no action
  adds or deletes, and facts true at first that no action deletes, are no
  preconditions and no adds (FF compiles them away: ``create_final_actions``), and an
  add that is a precondition is no add (``inst_final.c``, building ``gef_conn``).
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
from .grounder import flat_conjuncts
from .grounding import GroundAction, Task
from .heuristics import RelaxedTask
from .model import Action, Atom
from .search import StdHeap, greedy_best_first


def ff_order(task: Task) -> list[GroundAction]:
    """``task``'s actions in the order FF hands them to LAPKT (see the module's text)."""
    templates = sorted(task.actions, key=_template_keys(task).__getitem__)
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


def _template_keys(task: Task) -> dict[GroundAction, tuple]:
    """Each action's place in FF's list of easy templates (``inst_easy.c``): the
    operators in the domain's order (the parser prepends each, and the templates are
    prepended again); within one, the reverse of the order ``multiply_easy_op_parameters``
    made them: its static preconditions of two or more arguments bound in turn to the
    :init facts in their order, then its other parameters in turn, the last fastest,
    over FF's objects of their type (the problem's objects then the domain's constants,
    both last declared first), or over the facts of the static unary predicate naming
    it when those are the parameter's objects (``create_intersected_type``)."""
    fluent = _fluent_predicates(task)
    declared = list(task.objects)[::-1]  # build_orig_constant_list prepends each
    facts: dict[tuple, int] = {}
    unary: dict[str, list[str]] = {}  # a static unary predicate -> its objects in :init
    for i, atom in enumerate(task.problem.init):
        facts.setdefault((atom.predicate, atom.args), i)
        if len(atom.args) == 1 and atom.predicate not in fluent:
            unary.setdefault(atom.predicate, []).append(atom.args[0])
    schemas = {
        name: (s, _ff_levels(task, schema, fluent, declared, unary))
        for s, (name, schema) in enumerate(task.domain.actions.items())
    }
    keys: dict[GroundAction, tuple] = {}
    for action in task.actions:
        s, (names, statics, free) = schemas.get(action.name, (len(schemas), ((), (), ())))
        binding = dict(zip(names, action.args, strict=False))
        made = [facts.get((p, tuple(binding.get(t, t) for t in terms)), -1) for p, terms in statics]
        made += [places.get(binding.get(name), -1) for name, places in free]
        keys[action] = (s, tuple(-m for m in made))
    return keys


def _ff_levels(task: Task, schema: Action, fluent: set, declared: list, unary: dict) -> tuple:
    """(``schema``'s parameter names, its static preconditions of two or more
    parameters as (predicate, terms), its other parameters with {object: its place})."""
    names = tuple(p.name for p in schema.params)
    statics: list[tuple[str, tuple[str, ...]]] = []
    bound: set[str] = set()
    unaries: dict[str, list[str]] = {n: [] for n in names}
    for c in flat_conjuncts(schema.precondition):
        if not isinstance(c, Atom) or c.predicate in fluent:
            continue
        if len(c.args) == 1 and c.args[0] in unaries:
            unaries[c.args[0]].append(c.predicate)
        elif any(t in unaries for t in c.args):
            statics.append((c.predicate, c.args))
            bound.update(c.args)
    free = []
    for param in schema.params:
        if param.name in bound:
            continue
        of_type = set(task.objects_of(param.types))
        types = [[o for o in declared if o in of_type]]
        types += [unary.get(p, []) for p in unaries[param.name]]
        within = [set(t) for t in types[1:]]
        kept = [o for o in types[0] if all(o in t for t in within)]
        order = next((t for t in types if len(set(t)) == len(kept)), kept)
        free.append((param.name, {o: i for i, o in enumerate(order)}))
    return names, tuple(statics), tuple(free)


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


def _always(task: Task) -> int:
    """The facts FF finds always true (``inst_final.c``: initial, and no action deletes
    them): no precondition, no add."""
    deleted = 0
    for action in task.actions:
        deleted |= action.delete
        for _, _, _, delete in action.conditional:
            deleted |= delete
    return task.init & ~deleted


def _preconditions(task: Task, actions: list[GroundAction]) -> list[tuple[int, ...]]:
    """Each action's precondition facts as FF lists them: no inertia facts, none always
    true; a negative literal as a fact of its own (FF's NOT- predicates)."""
    fluent = _fluent_predicates(task)
    always = _always(task)
    out = []
    for action in actions:
        pre = [f for f in action.pre if task.facts[f].predicate in fluent and not always >> f & 1]
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
    actions = ff_order(task)
    precs = _preconditions(task, actions)
    rank = {id(a): r for a, r in zip(actions, successor_ranks(precs), strict=True)}
    always = _always(task)
    adds = {id(a): a.add & ~a.pre_pos & ~always for a in actions}
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
                gain = adds[id(action)] = action.add & ~action.pre_pos & ~always
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
