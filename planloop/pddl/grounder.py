"""The grounder: binds a domain's action schemas and formulas over a task's objects into
ground actions and conditions over that task's fact ids.

Static facts (of predicates no action changes) prune action parameters and
quantifiers while grounding, which binds parameters in a greedy join order and runs
each formula compiled once per grounder. What depends on the objects and static facts
alone is kept apart (:class:`Statics`), shared by the tasks of every problem with the
same ones; what names facts (the fact table and the compiled formulas) is one task's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from itertools import islice, product
from typing import Iterator, Sequence

from . import conditions as cond
from .deadline import Check
from .diagnostics import Diagnostic, PDDLError, quote
from .fact_table import FactTable
from .ground_action import NEVER, GroundAction, mask
from .model import (
    Action,
    And,
    Atom,
    Domain,
    Effect,
    Equals,
    Exists,
    Forall,
    ForallEffect,
    Formula,
    FrozenDict,
    Imply,
    Literal,
    Not,
    Or,
    Param,
    Problem,
    When,
)
from .source import Limits

Typed = tuple[tuple[str, ...], frozenset[str]]  # objects in declaration order, and as a set


class Statics:
    """What grounding derives from a domain, a problem's objects and its static facts
    alone, shared by every task grounded over them.

    Owner: the :class:`~planloop.pddl.grounding.Task` that grounds first builds it; the
    tasks :meth:`~planloop.pddl.grounding.Task.with_problem` derives from it hold the same
    object. Key: the domain (by identity), the problem's objects in declaration order and
    its static facts (:meth:`fits` checks the last two). Invariant: its data is read-only
    (``objects`` a :class:`~planloop.pddl.model.FrozenDict`, the static facts frozensets),
    and each entry of its two caches, filled on first use, is a function of that data and
    the entry's key alone, so it never changes once made and every holder may fill and
    read it (two threads at worst build one twice, equal):

    - ``typed``: types -> the objects of those types (:meth:`typed`);
    - ``indexes``: (predicate, slot) -> the static facts of ``predicate`` grouped by their
      other arguments, each group in object order (:meth:`static_index`).
    """

    __slots__ = (
        "domain",
        "objects",
        "object_order",
        "predicate_order",
        "static",
        "_declared",
        "_typed",
        "_indexes",
    )

    def __init__(self, domain: Domain, problem: Problem):
        objects = dict(domain.constants)
        objects.update(problem.objects)
        self.domain = domain
        self.objects: Mapping[str, str] = FrozenDict(objects)  # constants, then the problem's
        self.object_order = FrozenDict({o: i for i, o in enumerate(objects)})
        self.predicate_order = FrozenDict({p: i for i, p in enumerate(domain.predicates)})
        self.static = static_facts(domain, problem)
        self._declared = tuple(problem.objects.items())
        self._typed: dict[tuple[str, ...], Typed] = {}
        self._indexes: dict[tuple[str, int], dict[tuple[str, ...], tuple[str, ...]]] = {}

    def fits(self, problem: Problem) -> bool:
        """Whether ``problem`` declares these objects in this order and has these static
        facts (of the same domain: the caller's to know)."""
        return (
            tuple(problem.objects.items()) == self._declared
            and static_facts(self.domain, problem) == self.static
        )

    def objects_of(self, types: tuple[str, ...]) -> tuple[str, ...]:
        return self.typed(types)[0]

    def typed(self, types: tuple[str, ...]) -> Typed:
        """The objects of ``types`` in declaration order, and as a set."""
        found = self._typed.get(types)
        if found is None:
            kinds = {t for t in set(self.objects.values()) if self.domain.is_subtype(t, types)}
            typed = tuple([o for o, t in self.objects.items() if t in kinds])
            found = self._typed[types] = (typed, frozenset(typed))
        return found

    def static_index(self, predicate: str, slot: int) -> dict[tuple[str, ...], tuple[str, ...]]:
        """The static facts of ``predicate``: their other arguments -> the objects in
        ``slot``, in object order."""
        index = self._indexes.get((predicate, slot))
        if index is None:
            groups: dict[tuple[str, ...], list[str]] = {}
            for args in self.static[predicate]:
                groups.setdefault(args[:slot] + args[slot + 1 :], []).append(args[slot])
            order = self.object_order.__getitem__
            index = {rest: tuple(sorted(values, key=order)) for rest, values in groups.items()}
            self._indexes[(predicate, slot)] = index
        return index


class Grounder:
    """Grounds the actions and formulas of one task into its :class:`FactTable`.

    Owner: one :class:`~planloop.pddl.grounding.Task`, whose fact table (``facts``) it
    names facts in. Its cache ``_compiled`` maps (the id of a formula, effect tuple,
    schema or conjunct list; a kind) to that object, which guards against id reuse, and
    what was compiled from it: closures that name facts in this grounder's table, so it
    is never shared (:meth:`for_problem` starts another grounder with an empty one). The
    :class:`Statics` it grounds over are shared (see there).

    Grounding spends at most ``limits.max_expansion`` bindings per thing grounded (an
    action schema, the goal, an action instantiated on demand) and calls ``check`` every
    ``CHECK_EVERY`` of them, which may raise
    :class:`~planloop.pddl.deadline.SearchTimeout` to stop it."""

    CHECK_EVERY = 2048

    def __init__(
        self,
        shared: Statics,
        limits: Limits,
        check: Check | None = None,
        facts: FactTable | None = None,
    ):
        self.shared = shared
        self.limits = limits
        self.facts = FactTable(limits, len(shared.objects)) if facts is None else facts
        self._check = check
        self._compiled: dict[tuple[int, object], tuple] = {}  # see _memo

    def for_problem(self) -> Grounder:
        """A grounder for another problem over the same statics: with a copy of this fact
        table (so the ids of the ground actions made here hold there), nothing compiled
        and no deadline."""
        return Grounder(self.shared, self.limits, None, self.facts.copy())

    def stop_checking(self) -> None:
        """Forget ``check``: the deadline was for grounding the task, not for the actions
        instantiated on demand later."""
        self._check = None

    def ground_goal(self, goal: Formula) -> cond.Condition:
        """``goal`` as a ground condition, static atoms decided."""
        self._budget("the goal")
        return self._ground_formula(goal, {}, simplify=True)

    def instantiate(self, schema: Action, args: tuple[str, ...]) -> GroundAction:
        """``schema`` with its parameters bound to ``args`` (whose count and types the
        caller checked), its whole precondition kept."""
        self._budget(f"action {quote(schema.name)}")
        binding = dict(zip((p.name for p in schema.params), args, strict=True))
        return self._instantiator(schema, simplify=False)(binding)

    # -- the work budget -----------------------------------------------------------
    def _budget(self, where: str) -> None:
        """Start counting the bindings grounding ``where`` (such as "action 'move'")."""
        self._where, self._spent, self._next_check = where, 0, self.CHECK_EVERY

    def _spend(self, count: int, detail: str = "") -> None:
        """Count ``count`` bindings (``detail`` says of what); refuse past the limit."""
        self._spent += count
        if self._spent > self.limits.max_expansion:
            raise PDDLError(
                [
                    Diagnostic(
                        "problem",
                        self.limits.exceeded(
                            "max_expansion",
                            f"grounding {self._where} expands {self._spent:,} bindings "
                            f"of parameters, quantifiers and conditional effects{detail}",
                        ),
                    )
                ]
            )
        if self._spent >= self._next_check:
            self._next_check = self._spent + self.CHECK_EVERY
            if self._check is not None:
                self._check()

    # -- grounding -----------------------------------------------------------------
    def ground_all(self) -> Iterator[GroundAction]:
        """Every action of the domain that the static facts allow, in grounding order."""
        count = 0
        for schema in self.shared.domain.actions.values():
            conjuncts = flat_conjuncts(schema.precondition)
            budget = self.limits.max_ground_actions - count
            self._budget(f"action {quote(schema.name)}")
            instantiate = self._instantiator(schema, simplify=True)
            for binding in self._bindings(schema.params, conjuncts, {}, budget):
                count += 1
                if count > self.limits.max_ground_actions:
                    self.limits.check(
                        "max_ground_actions",
                        count,
                        "problem",
                        f"ground actions (at {quote(schema.name)}; {self.facts.size()})",
                    )
                action = instantiate(binding)
                if action.extra != NEVER:
                    yield action

    def _instantiator(self, schema, simplify: bool):
        """A function binding -> the GroundAction of ``schema``. With ``simplify``, for the
        bindings of :meth:`_bindings` only: the static conjuncts it checked are left out."""
        name, names = schema.name, [p.name for p in schema.params]
        precondition = (
            self._grounder(self._unchecked(schema), True)
            if simplify
            else self._grounder(schema.precondition, False)
        )
        effects = self._grounder(schema.effects, True)

        def instantiate(binding: dict[str, str]) -> GroundAction:
            condition = precondition(binding)
            add, delete, conditional = effects(binding)
            return GroundAction(
                name, tuple([binding[n] for n in names]), condition, add, delete, tuple(conditional)
            )

        return instantiate

    def _bindings(
        self, params: tuple[Param, ...], conjuncts, binding, budget: int | None = None
    ) -> Iterator[dict]:
        """Every binding of ``params`` that the static conjuncts allow, in the order of
        nested loops over the parameters in declaration order and the objects in
        declaration order.

        The parameters are bound in a join order (see :meth:`_join_order`); when it is not
        the declared one, the bindings are sorted back, holding at most ``budget`` + 1 of
        them (the caller refuses more)."""
        if not all(self.shared.objects_of(p.types) for p in params):
            return
        statics, bound = self._static_checks(conjuncts), frozenset(binding)
        outer = self._memo(
            conjuncts, ("outer", params, bound), lambda: self._pool_terms(params, statics, bound)
        )
        order, levels = self._memo(
            conjuncts,
            ("plan", params, bound, tuple([binding[t] for t in outer])),
            lambda: self._plan(params, statics, binding),
        )
        found = self._extend(levels, 0, dict(binding))
        if order == sorted(order):
            yield from found
            return
        rank = self.shared.object_order
        names = [p.name for p in params]
        values = sorted(  # as tuples while sorted: a tuple is a quarter of a dict's size
            (
                tuple([b[name] for name in names])
                for b in islice(found, None if budget is None else budget + 1)
            ),
            key=lambda v: [rank[o] for o in v],
        )
        for value in values:
            sorted_binding = dict(binding)
            sorted_binding.update(zip(names, value, strict=True))
            yield sorted_binding

    def _plan(self, params: tuple[Param, ...], statics, binding) -> tuple[list[int], list]:
        """The join order of ``params`` and its levels (see :meth:`_levels`), given the
        variables ``binding`` binds. Only the pools look at its values, and only at those
        of :meth:`_pool_terms`, so a quantifier is planned once per such values."""
        pools = self._pools(params, statics, binding)
        order = self._join_order(params, statics, pools, set(binding))
        return order, self._levels([params[i] for i in order], statics, pools, set(binding))

    def _pool_terms(self, params: tuple[Param, ...], statics, bound) -> tuple[str, ...]:
        """The bound variables the pools of ``params`` are filtered by (see :meth:`_pools`)."""
        checks = self._alone(params, statics).values()
        return tuple(sorted({t for c in checks for _, f in c for t in _terms(f) if t in bound}))

    @staticmethod
    def _alone(params: tuple[Param, ...], statics) -> dict[Param, list[tuple[bool, Formula]]]:
        """For each parameter no positive static atom indexes, the static checks that name
        no other of ``params``."""
        indexed = {t for polarity, f in statics if polarity and isinstance(f, Atom) for t in f.args}
        names = {p.name for p in params}
        return {
            param: [
                (polarity, f)
                for polarity, f in statics
                if {t for t in _terms(f) if t in names} == {param.name}
            ]
            for param in params
            if param.name not in indexed
        }

    def _levels(self, ordered: list[Param], statics, pools, bound: set[str]) -> list[tuple]:
        """Per parameter in binding order: (its name, the static fact indexes that list its
        values with the terms of their keys, (its pool, as a set), the static checks
        decided once it is bound, as (test, polarity))."""
        position = {p.name: i for i, p in enumerate(ordered)}
        checks: list[list] = [[] for _ in ordered]
        for polarity, formula in statics:
            free = {position[t] for t in _terms(formula) if t in position}
            if free and not (len(free) == 1 and ordered[min(free)].name in pools):
                checks[max(free)].append((self._grounder(formula, True), polarity))
        levels = []
        for param, tests in zip(ordered, checks, strict=True):
            lookups = [
                (self.shared.static_index(f.predicate, slot), f.args[:slot] + f.args[slot + 1 :])
                for slot, f in self._index_uses(param.name, statics, bound)
            ]
            levels.append((param.name, lookups, self._pool(param, pools), tests))
            bound.add(param.name)
        return levels

    def _pools(self, params: tuple[Param, ...], statics, binding) -> dict[str, tuple]:
        """(objects, their set) for each parameter that no static atom indexes but static
        checks on it alone filter, such as ALFWorld's ``(or (objecttype ?ko knifetype)
        (objecttype ?ko butterknifetype))``: filtered once, not at every partial binding."""
        pools = {}
        for param, checks in self._alone(params, statics).items():
            alone = [(self._grounder(f, True), polarity) for polarity, f in checks]
            if alone:
                trial = dict(binding)
                kept = []
                for obj in self.shared.objects_of(param.types):
                    trial[param.name] = obj
                    if all(test(trial) == polarity for test, polarity in alone):
                        kept.append(obj)
                pools[param.name] = (kept, frozenset(kept))
        return pools

    def _join_order(self, params: tuple[Param, ...], statics, pools, bound: set[str]) -> list[int]:
        """Parameter positions in a greedy join order: next, the parameter with the fewest
        expected candidates (a static fact index's mean group size when the other terms of
        a static atom are bound, else its pool); ties keep declaration order."""
        if len(params) < 2:
            return list(range(len(params)))
        order: list[int] = []
        bound = set(bound)
        left = list(range(len(params)))
        while left:
            best = min(left, key=lambda i: (self._expected(params[i], statics, pools, bound), i))
            order.append(best)
            left.remove(best)
            bound.add(params[best].name)
        return order

    def _expected(self, param: Param, statics, pools, bound: set[str]) -> float:
        expected = float(len(self._pool(param, pools)[0]))
        for slot, formula in self._index_uses(param.name, statics, bound):
            index = self.shared.static_index(formula.predicate, slot)
            expected = min(
                expected, len(self.shared.static[formula.predicate]) / max(1, len(index))
            )
        return expected

    @staticmethod
    def _index_uses(name: str, statics, bound) -> Iterator[tuple[int, Atom]]:
        """(slot, atom) of the positive static atoms that name ``name`` once and whose
        other terms are constants or in ``bound``: those whose index lists its values."""
        for polarity, formula in statics:
            if (
                polarity
                and isinstance(formula, Atom)
                and formula.args.count(name) == 1
                and all(not t.startswith("?") or t in bound or t == name for t in formula.args)
            ):
                yield formula.args.index(name), formula

    def _extend(self, levels: list[tuple], depth: int, binding: dict) -> Iterator[dict]:
        if depth == len(levels):
            yield dict(binding)
            return
        name, lookups, (pool, allowed), tests = levels[depth]
        candidates = self._candidates(lookups, pool, allowed, binding)
        self._spend(len(candidates))
        for obj in candidates:
            binding[name] = obj
            if all(test(binding) == polarity for test, polarity in tests):
                yield from self._extend(levels, depth + 1, binding)
        binding.pop(name, None)

    def _candidates(
        self, lookups, pool: Sequence[str], allowed: frozenset[str], binding
    ) -> Sequence[str]:
        """Objects for a parameter: from the smallest static fact index group that
        applies, within its pool; else its pool."""
        best = None
        for index, terms in lookups:
            values = index.get(tuple([binding.get(t, t) for t in terms]), ())
            if best is None or len(values) < len(best):
                best = values
        if best is None:
            return pool
        if len(pool) == len(self.shared.objects):
            return best
        return [o for o in best if o in allowed]

    def _pool(self, param: Param, pools) -> Typed:
        """The objects ``param`` may take before the index: its pool or its typed objects."""
        return pools.get(param.name) or self.shared.typed(param.types)

    def _unchecked(self, schema) -> Formula:
        """The precondition of ``schema`` without the static conjuncts on its parameters,
        which :meth:`_bindings` checks."""

        def unchecked():
            names = {p.name for p in schema.params}
            return And(
                tuple(
                    c
                    for c in flat_conjuncts(schema.precondition)
                    if (check := self._static_check(c)) is None or not names & set(_terms(check[1]))
                )
            )

        return self._memo(schema, "unchecked", unchecked)

    def _static_checks(self, conjuncts: list[Formula]) -> list[tuple[bool, Formula]]:
        """The static checks among ``conjuncts``, found once per list."""
        return self._memo(
            conjuncts,
            "statics",
            lambda: [check for check in map(self._static_check, conjuncts) if check is not None],
        )

    def _static_check(self, formula: Formula):
        """(polarity, formula) if ``formula`` can be decided from static facts alone."""
        polarity = True
        if isinstance(formula, Not):
            polarity, formula = False, formula.arg
        return (polarity, formula) if self._is_static(formula) else None

    def _is_static(self, formula: Formula) -> bool:
        """Whether ``formula`` is built of equalities and static atoms with not/and/or
        (such as ALFWorld's ``(or (objecttype ?ko knifetype) ...)``)."""
        if isinstance(formula, Atom):
            return formula.predicate in self.shared.static
        if isinstance(formula, Not):
            return self._is_static(formula.arg)
        if isinstance(formula, (And, Or)):
            return all(self._is_static(part) for part in formula.args)
        return isinstance(formula, Equals)

    def _ground_formula(self, f: Formula, binding, simplify: bool) -> cond.Condition:
        return self._grounder(f, simplify)(binding)

    def _grounder(self, f, simplify: bool):
        """``f`` compiled once into a function binding -> ground condition (static atoms
        decided when ``simplify``), or, for a tuple of effects, binding -> (add, delete,
        conditional)."""
        return self._memo(
            f,
            simplify,
            lambda: (
                self._compile_effects(f) if isinstance(f, tuple) else self._compile(f, simplify)
            ),
        )

    def _memo(self, key_object, kind, make):
        """``make()``, computed once per (object, kind) by this grounder."""
        entry = self._compiled.get((id(key_object), kind))
        if entry is None or entry[0] is not key_object:  # the object guards against id reuse
            entry = self._compiled[(id(key_object), kind)] = (key_object, make())
        return entry[1]

    def _compile(self, f: Formula, simplify: bool):
        if isinstance(f, Atom):
            predicate, terms = f.predicate, f.args
            if simplify and predicate in self.shared.static:
                facts = self.shared.static[predicate]
                return lambda b: tuple([b.get(t, t) for t in terms]) in facts
            ids, new_id = self.facts.ids, self.facts.id

            def atom(b):
                args = tuple([b.get(t, t) for t in terms])
                fid = ids.get((predicate, args))
                return ("atom", new_id(predicate, args) if fid is None else fid)

            return atom
        if isinstance(f, Equals):
            left, right = f.left, f.right
            return lambda b: b.get(left, left) == b.get(right, right)
        if isinstance(f, Not):
            inner = self._grounder(f.arg, simplify)
            return lambda b: cond.negate(inner(b))
        if isinstance(f, (And, Or)):
            parts = [self._grounder(p, simplify) for p in f.args]
            junction = cond.conjoin if isinstance(f, And) else cond.disjoin
            return lambda b: junction(part(b) for part in parts)
        if isinstance(f, Imply):
            condition = self._grounder(f.condition, simplify)
            consequence = self._grounder(f.consequence, simplify)
            return lambda b: cond.disjoin([cond.negate(condition(b)), consequence(b)])
        if isinstance(f, (Exists, Forall)) and not all(
            self.shared.objects_of(p.types) for p in f.params
        ):
            return lambda b: isinstance(f, Forall)  # over a type without objects
        if isinstance(f, Exists):
            body, params, conjuncts = (
                self._grounder(f.body, simplify),
                f.params,
                flat_conjuncts(f.body),
            )
            return lambda b: cond.disjoin(body(x) for x in self._bindings(params, conjuncts, b))
        if isinstance(f, Forall):
            body, params = self._grounder(f.body, simplify), f.params
            return lambda b: cond.conjoin(body(x) for x in self._all_bindings(params, b))
        raise TypeError(f"not a formula: {f!r}")

    def _all_bindings(self, params, binding) -> Iterator[dict]:
        """Every binding of the variables ``params`` of a forall, counted before any."""
        pools = [self.shared.objects_of(p.types) for p in params]
        sizes = [len(pool) for pool in pools]
        count = math.prod(sizes)
        power = f"{sizes[0]}^{len(sizes)}" if len(set(sizes)) == 1 else " x ".join(map(str, sizes))
        self._spend(
            count,
            f" (a forall over {' '.join(p.name for p in params)} ranges over "
            f"{power} = {count:,} bindings)",
        )
        check, every = self._check, self.CHECK_EVERY
        for n, values in enumerate(product(*pools), start=1):
            if check is not None and n % every == 0:
                check()
            inner = dict(binding)
            inner.update(zip((p.name for p in params), values, strict=True))
            yield inner

    def _ground_effects(self, effects: tuple[Effect, ...], binding):
        return self._grounder(effects, True)(binding)

    def _compile_effects(self, effects: tuple[Effect, ...]):
        """A function binding -> (added fact ids, deleted fact ids, conditional effects as
        (test, condition, add mask, delete mask)), the ids in order without repeats."""
        parts = [
            (e.atom.predicate, e.atom.args, e.negated) if isinstance(e, Literal) else e
            for e in effects
        ]
        ids, new_id = self.facts.ids, self.facts.id

        def ground_effects(binding):
            add: dict[int, None] = {}
            delete: dict[int, None] = {}
            conditional: list[tuple] = []
            for part in parts:
                if type(part) is not tuple:
                    more_add, more_delete = self._ground_compound(part, binding, conditional)
                    add.update(dict.fromkeys(more_add))
                    delete.update(dict.fromkeys(more_delete))
                    continue
                predicate, terms, negated = part
                args = tuple([binding.get(t, t) for t in terms])
                fid = ids.get((predicate, args))
                (delete if negated else add)[new_id(predicate, args) if fid is None else fid] = None
            return tuple(add), tuple(delete), conditional

        return ground_effects

    def _ground_compound(self, effect, binding, conditional: list) -> tuple[Sequence, Sequence]:
        """The unconditional (added ids, deleted ids) of a ``when`` or ``forall`` effect;
        its conditional parts are appended to ``conditional``."""
        add: list[int] = []
        delete: list[int] = []
        if isinstance(effect, When):
            condition = self._ground_formula(effect.condition, binding, simplify=True)
            if condition is False:
                return add, delete
            c_add, c_delete, nested = self._ground_effects(effect.effects, binding)
            self._spend(1 + len(nested))
            if condition is True:
                conditional.extend(nested)
                return c_add, c_delete
            conditional.append(
                (cond.compile_condition(condition), condition, mask(c_add), mask(c_delete))
            )
            for _, inner, n_add, n_delete in nested:
                both = cond.conjoin([condition, inner])
                conditional.append((cond.compile_condition(both), both, n_add, n_delete))
        elif isinstance(effect, ForallEffect):
            for inner_binding in self._all_bindings(effect.params, binding):
                f_add, f_delete, nested = self._ground_effects(effect.effects, inner_binding)
                add.extend(f_add)
                delete.extend(f_delete)
                conditional.extend(nested)
        return add, delete


def static_facts(domain: Domain, problem: Problem) -> Mapping[str, frozenset[tuple[str, ...]]]:
    """The arguments of each static predicate's (one no action changes) initial facts."""
    static: dict[str, list[tuple[str, ...]]] = {
        p: [] for p in set(domain.predicates) - domain.changed_predicates()
    }
    for fact in problem.init:
        if fact.predicate in static:
            static[fact.predicate].append(fact.args)
    return FrozenDict({p: frozenset(args) for p, args in static.items()})


def flat_conjuncts(f: Formula) -> list[Formula]:
    """The conjuncts of ``f``, nested conjunctions flattened."""
    if isinstance(f, And):
        return [c for part in f.args for c in flat_conjuncts(part)]
    return [f]


def _terms(f) -> tuple[str, ...]:
    """The terms of a static check's formula (an atom, equality, or not/and/or of them)."""
    if isinstance(f, Atom):
        return f.args
    if isinstance(f, Equals):
        return f.left, f.right
    if isinstance(f, Not):
        return _terms(f.arg)
    return tuple(t for part in f.args for t in _terms(part))
