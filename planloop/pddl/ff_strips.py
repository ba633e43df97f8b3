"""A task as FF's grounding hands it to LAPKT (``ff_to_aptk.cxx``), for the authors
planner's search (:mod:`.dual_bfws`): FF's actions in FF's order, FF's facts by FF's
numbers, and each action's precondition, add and delete lists as FF builds them.

- **Actions**: FF's easy templates in FF's order (:mod:`.ff_templates`: an operator's
  copy for each way of meeting its precondition, bound as ``inst_easy.c`` binds them)
  swept by FF's reachability fix point
  (``inst_final.c``, ``perform_reachability_analysis``), each template whose
  preconditions are reached taken at once and prepended to the action list.
- **Negative preconditions** (``inst_pre.c``, ``translate_negative_preconds``): a fluent
  predicate ``p`` named under ``not`` in a precondition or the goal gets a predicate
  ``NOT-p``; each effect on ``p`` gains the opposite effect on ``NOT-p`` just before it,
  and ``NOT-p`` holds at first wherever ``p`` does not. Here ``NOT-f`` is the fluent
  ``n + f`` (``n`` the task's facts).
- **Facts** (``collect_relevant_facts_and_fluents``): numbered as the sweep first
  reaches them (facts not true at first), then the facts true at first that some
  action deletes, in the final action order; a fact true at first that no action
  deletes is no fact (always true: no precondition, add or goal), nor is a fact of a
  predicate no action changes.
- **Effects** (``build_connectivity_graph``): an add that is a precondition is no add; a
  delete that the effect also adds is no delete.
- **A disjunctive goal** (``create_final_goal_state``): the goal in disjunctive normal
  form, a way with a fluent never reached dropped; where more than one way is left, a
  goal fluent (``2n``, numbered after the facts) and, for each way, an action needing
  it and adding the goal fluent, prepended to the action list (so the last way first).

Tasks beyond the model here (conditional effects; a precondition or goal with more than
:data:`.ff_templates.MAX_WAYS` ways to meet it, or quantifiers expanding past
:data:`.ff_templates.MAX_EXPANDED` copies) get none:
:func:`ff_strips` returns None."""

from __future__ import annotations

from dataclasses import dataclass

from .ff_templates import Templates, ff_dnf
from .ground_action import mask
from .grounding import GroundAction, Task, true_fact_ids
from .model import Action, And, Atom, Exists, Forall, Imply, Literal, Not, Or


@dataclass(frozen=True)
class FFStrips:
    """FF's STRIPS model of a task. Fluents are the task's fact ids, ``NOT-f`` being
    ``n + f``; a state is a bitset over them."""

    n: int
    actions: list[GroundAction | None]  # FF's order; None: an action reaching the goal
    pre: list[tuple[int, ...]]  # each action's precondition fluents, in FF's order
    adds: list[tuple[int, ...]]  # each action's adds, in its effect's order
    pre_mask: list[int]
    add_mask: list[int]
    del_mask: list[int]
    goal: tuple[int, ...]  # FF's goal fluents in the goal's order (``2n``: a disjunction's)
    number: dict[int, int]  # fluent -> FF's fact number
    init: int  # the initial state over the fluents
    fixed: int  # the task's facts true at first that are no fluents (always true)

    def init_vector(self) -> list[int]:
        """The initial state's fluents as LAPKT lists them (sorted by number)."""
        return sorted(true_fact_ids(self.init), key=self.number.__getitem__)

    def task_state(self, state: int) -> int:
        """The task's state of ``state``."""
        return (state & ((1 << self.n) - 1)) | self.fixed


def ff_strips(task: Task) -> FFStrips | None:
    """FF's model of ``task`` (see the module's text), or None for a task beyond it."""
    if any(a.conditional for a in task.actions):
        return None
    schemas = task.domain.actions
    if any(not all(isinstance(e, Literal) for e in schemas[a].effects) for a in schemas):
        return None
    n = len(task.facts)
    ids = {(atom.predicate, atom.args): i for i, atom in enumerate(task.facts)}
    fluent = _fluent_predicates(task)
    negated = _negated_predicates(task, fluent)
    deleted, added = 0, 0
    for action in task.actions:
        deleted |= action.delete
        added |= action.add
    initial_not = sum(1 << (n + f) for f in range(n) if task.facts[f].predicate in negated)
    initial_not &= ~(task.init << n)
    # fluents that are always true: FF drops them everywhere
    always = (task.init & ~deleted) | (initial_not & ~(added << n))
    kept_fact = [task.facts[f].predicate in fluent for f in range(n)]

    def keep(x: int) -> bool:
        return kept_fact[x % n] and not always >> x & 1

    templates = Templates(task, fluent)
    goal_ways = ff_dnf(task.problem.goal, task.objects_of)
    if goal_ways is None:
        return None
    disjuncts = [
        w
        for way in goal_ways
        if (w := _way_fluents(way, {}, ids, n, negated, templates)) is not None
    ]
    if not disjuncts:  # a goal that is False
        return None
    instances = []  # (action index, its precondition fluents, its template's place)
    effect_lists = []
    for i, action in enumerate(task.actions):
        schema = schemas[action.name]
        binding = dict(zip((p.name for p in schema.params), action.args, strict=False))
        effect_lists.append(_ff_effects(schema, binding, ids, n, negated))
        op_ways = templates.ways[action.name]
        if op_ways is None:
            return None
        for d, way in enumerate(op_ways):
            fluents = _way_fluents(way, binding, ids, n, negated, templates)
            if fluents is not None:
                instances.append((i, fluents, templates.key(schema, d, way, binding)))
    instances.sort(key=lambda instance: instance[2])
    start = task.init | initial_not
    taken, reached = _sweep(
        start, [x[1] for x in instances], [effect_lists[x[0]] for x in instances]
    )
    number: dict[int, int] = {}
    for x in reached:
        if keep(x):
            number.setdefault(x, len(number))
    for k in taken:  # facts true at first that an action deletes, in the final order
        for x, is_add in effect_lists[instances[k][0]]:
            if not is_add and start >> x & 1 and keep(x):
                number.setdefault(x, len(number))
    actions: list[GroundAction | None] = []
    pre: list[tuple[int, ...]] = []
    adds: list[tuple[int, ...]] = []
    dels: list[set[int]] = []
    goal, ways = _ff_goal(disjuncts, always, lambda x: x in number or start >> x & 1)
    if goal is None:  # a disjunction: an action reaching the goal fluent for each way
        number[2 * n] = len(number)
        for goal_way in ways[::-1]:
            actions.append(None)
            pre.append(tuple(dict.fromkeys(x for x in goal_way if not always >> x & 1)))
            adds.append((2 * n,))
            dels.append(set())
        goal = (2 * n,)
    for k in taken:
        i = instances[k][0]
        p = tuple(dict.fromkeys(x for x in instances[k][1] if keep(x)))
        effect_adds = [x for x, is_add in effect_lists[i] if is_add]
        actions.append(task.actions[i])
        pre.append(p)
        adds.append(tuple(dict.fromkeys(x for x in effect_adds if x not in p and keep(x))))
        dels.append({x for x, is_add in effect_lists[i] if not is_add and x not in effect_adds})
    for x in goal:  # a goal fluent FF never reaches is still one (it never holds)
        number.setdefault(x, len(number))
    init = mask(x for x in number if start >> x & 1)
    return FFStrips(
        n,
        actions,
        pre,
        adds,
        [mask(p) for p in pre],
        [mask(a) for a in adds],
        [mask(x for x in d if keep(x)) for d in dels],
        goal,
        number,
        init,
        task.init & ~init,
    )


def _ff_goal(
    disjuncts: list[list[int]], always: int, reached
) -> tuple[tuple[int, ...] | None, list[list[int]]]:
    """(FF's goal fluents, when the goal simplifies to one conjunction, else None; the
    ways left): always-true fluents dropped, and a way with a fluent never reached."""
    ways = [[x for x in w if not always >> x & 1] for w in disjuncts]
    if any(not w for w in ways):
        return (), []  # simplified to TRUE
    possible = [w for w in ways if all(reached(x) for x in w)]
    if len(possible) <= 1:
        return tuple(dict.fromkeys(possible[0] if possible else ways[0] if ways else ())), []
    return None, possible


def _ff_effects(
    schema: Action, binding: dict, ids: dict, n: int, negated: set
) -> list[tuple[int, bool]]:
    """(fluent, is it an add) for each effect of ``schema`` under ``binding`` in its
    order, each effect on a ``NOT-`` predicate's fact preceded by the opposite effect on
    its ``NOT-`` fluent."""
    out = []
    for effect in schema.effects:
        assert isinstance(effect, Literal)
        atom = effect.atom
        fid = ids.get((atom.predicate, tuple(binding.get(t, t) for t in atom.args)))
        if fid is None:
            continue
        if atom.predicate in negated:
            out.append((n + fid, effect.negated))
        out.append((fid, not effect.negated))
    return out


def _sweep(start: int, pre_lists: list, effect_lists: list) -> tuple[list[int], list[int]]:
    """FF's reachability fix point over its templates in their order: (the templates
    taken, in FF's final order; the fluents first reached, in order)."""
    reached = start
    taken: list[int] = []
    numbers: list[int] = []
    done = [False] * len(pre_lists)
    fixpoint = False
    while not fixpoint:
        fixpoint = True
        for k, pre in enumerate(pre_lists):
            if done[k] or any(not reached >> x & 1 for x in pre):
                continue
            done[k] = True
            taken.append(k)
            for x, is_add in effect_lists[k]:
                if is_add and not reached >> x & 1:
                    reached |= 1 << x
                    numbers.append(x)
                    fixpoint = False
    return taken[::-1], numbers  # each taken action is prepended to gactions


def _way_fluents(
    way: list, binding: dict, ids: dict, n: int, negated: set, templates: Templates
) -> list[int] | None:
    """The fluents of one way of an action's precondition under ``binding``, in its
    order, or None when FF makes no template of it (a static literal false, a fact that
    never holds)."""
    out = []
    for lit in way:
        static = templates.holds_statically(lit, binding)
        if static is not None:
            if not static:
                return None
            continue
        target, negative = lit
        fid = ids.get((target.predicate, tuple(binding.get(t, t) for t in target.args)))
        if fid is None:
            if not negative:
                return None
            continue  # a fact that never holds: its negation always does
        if negative and target.predicate not in negated:
            return None
        out.append(n + fid if negative else fid)
    return out


def _fluent_predicates(task: Task) -> set:
    """The predicates some action adds or deletes (FF's non-inertia predicates)."""
    names = set()
    for action in task.actions:
        for fact in (*action.adds, *action.deletes):
            names.add(task.facts[fact].predicate)
        for _, _, add, delete in action.conditional:
            for fact in true_fact_ids(add | delete):
                names.add(task.facts[fact].predicate)
    return names


def _negated_predicates(task: Task, fluent: set) -> set:
    """The fluent predicates named under ``not`` in a precondition or the goal (FF gives
    each a ``NOT-`` predicate)."""
    found = set()
    formulas = [schema.precondition for schema in task.domain.actions.values()]
    formulas.append(task.problem.goal)
    while formulas:
        f = formulas.pop()
        if isinstance(f, Not) and isinstance(f.arg, Atom):
            found.add(f.arg.predicate)
        elif isinstance(f, Not):
            formulas.append(f.arg)
        elif isinstance(f, (And, Or)):
            formulas.extend(f.args)
        elif isinstance(f, Imply):
            formulas += [f.condition, f.consequence]
        elif isinstance(f, (Exists, Forall)):
            formulas.append(f.body)
    return found & fluent
