"""Grounding: a domain and a problem become a :class:`Task` over integer fact ids.

Static facts (of predicates no action changes) prune action parameters and
quantifiers while grounding, which binds parameters in a greedy join order and runs
each formula compiled once per task; a delete-relaxed reachability pass then drops
actions that can never fire. States are Python ints used as bitsets.
"""

from __future__ import annotations

import copy
import math
import threading
from dataclasses import dataclass
from itertools import islice, product
from typing import Callable, Iterable, Iterator, Sequence

from . import conditions as cond
from .collection import collection_paused
from .deadline import Check
from .diagnostics import Diagnostic, PDDLError, quote
from .memo import Memo
from .model import (
    And,
    Atom,
    Domain,
    Effect,
    Equals,
    Exists,
    Forall,
    ForallEffect,
    Formula,
    Imply,
    Literal,
    Not,
    Or,
    Param,
    Problem,
    When,
)
from .source import DEFAULT_LIMITS, Limits


class GroundAction:
    """One action with its arguments bound: its precondition's literals and its effects
    as fact-id tuples (``pre``, ``pre_not``, ``adds``, ``deletes``), the rest of its
    precondition as a compiled test, and ``when`` effects as ``conditional``.

    The bitset masks (``pre_pos``, ``pre_neg``, ``add``, ``delete``) are built on first
    use: a mask is as wide as the task's facts, and a large task's actions mostly go
    unused."""

    __slots__ = (
        "name",
        "args",
        "pre",
        "pre_not",
        "extra",
        "extra_test",
        "adds",
        "deletes",
        "conditional",
        "_precondition",
        "_text",
        "_pre_pos",
        "_pre_neg",
        "_add",
        "_delete",
    )
    _precondition: cond.Condition | None
    _text: str | None
    _pre_pos: int | None
    _pre_neg: int | None
    _add: int | None
    _delete: int | None

    def __init__(
        self,
        name: str,
        args: tuple[str, ...],
        precondition: cond.Condition,
        adds: tuple[int, ...],
        deletes: tuple[int, ...],
        conditional: tuple,
    ):
        self.name, self.args = name, args
        literals = cond.literal_ids(precondition)
        self.pre, self.pre_not, self.extra = literals if literals else ((), (), _NEVER)
        self.extra_test = cond.compile_condition(cond.conjoin(self.extra)) if self.extra else None
        # a conjunction of distinct atoms (most actions) is rebuilt from them when asked for
        atoms_only = (
            not self.pre_not
            and not self.extra
            and type(precondition) is tuple
            and precondition[0] == "and"
            and len(precondition[1]) == len(self.pre)
        )
        self._precondition = None if atoms_only else precondition
        self.adds, self.deletes = adds, deletes
        self.conditional = conditional  # ((test, condition, add mask, delete mask), ...)
        self._text = self._pre_pos = self._pre_neg = self._add = self._delete = None

    def _rebuilt(self) -> cond.Condition:
        literals = [cond.atom(f) for f in self.pre]
        literals += [cond.negate(cond.atom(f)) for f in self.pre_not]
        return cond.conjoin(literals + list(self.extra))

    @property
    def precondition(self) -> cond.Condition:
        return self._rebuilt() if self._precondition is None else self._precondition

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = "(" + " ".join((self.name,) + self.args) + ")"
        return self._text

    @property
    def pre_pos(self) -> int:
        if self._pre_pos is None:
            self._pre_pos = _mask(self.pre)
        return self._pre_pos

    @property
    def pre_neg(self) -> int:
        if self._pre_neg is None:
            self._pre_neg = _mask(self.pre_not)
        return self._pre_neg

    @property
    def add(self) -> int:
        if self._add is None:
            self._add = _mask(self.adds)
        return self._add

    @property
    def delete(self) -> int:
        if self._delete is None:
            self._delete = _mask(self.deletes)
        return self._delete

    def applicable(self, state: int) -> bool:
        pos = self.pre_pos if self._pre_pos is None else self._pre_pos  # (a step's hot path)
        return (
            state & pos == pos
            and not state & (self.pre_neg if self._pre_neg is None else self._pre_neg)
            and (self.extra_test is None or self.extra_test(state))
        )

    def apply(self, state: int) -> int:
        if not self.conditional:
            delete = self.delete if self._delete is None else self._delete
            return (state & ~delete) | (self.add if self._add is None else self._add)
        add, delete = self.add, self.delete
        for test, _, c_add, c_delete in self.conditional:
            if test(state):
                add |= c_add
                delete |= c_delete
        return (state & ~delete) | add

    def __repr__(self) -> str:
        return f"GroundAction{self.text}"


_NEVER = (False,)  # the rest of a precondition that cannot hold
_FEW_CHANGES = 64  # Task._true updates its last set for at most this many changed facts


def _mask(ids: Iterable[int]) -> int:
    """The bitset of the fact ids ``ids``."""
    ids = list(ids)
    if len(ids) < 16:
        mask = 0
        for fid in ids:
            mask |= 1 << fid
        return mask
    digits = bytearray(max(ids) // 8 + 1)
    for fid in ids:
        digits[fid >> 3] |= 1 << (fid & 7)
    return int.from_bytes(digits, "little")


class ActionLookupError(ValueError):
    """An action that cannot be instantiated: ``kind`` is ``unknown`` or ``malformed``."""

    def __init__(self, kind: str, message: str):
        self.kind = kind
        super().__init__(message)


@dataclass(frozen=True)
class UnmetFact:
    atom: Atom
    wanted: bool

    def __str__(self) -> str:
        return str(self.atom) if self.wanted else f"(not {self.atom})"


class Task:
    """A grounded planning task: facts, actions, initial state and goal.

    Grounding spends at most ``limits.max_expansion`` bindings per task (and per action
    instantiated later on demand) and calls ``check`` every ``CHECK_EVERY`` of them, which
    may raise :class:`~planloop.pddl.deadline.SearchTimeout` to stop it."""

    CHECK_EVERY = 2048

    def __init__(
        self,
        domain: Domain,
        problem: Problem,
        limits: Limits = DEFAULT_LIMITS,
        check: Check | None = None,
    ):
        self.domain = domain
        self.limits = limits
        self._check = check
        self.objects: dict[str, str] = dict(domain.constants)
        self.objects.update(problem.objects)
        self._object_order = {o: i for i, o in enumerate(self.objects)}
        self._predicate_order = {p: i for i, p in enumerate(domain.predicates)}
        self.facts: list[Atom] = []
        self._fact_ids: dict[tuple[str, tuple[str, ...]], int] = {}  # (predicate, args) -> id
        self._compiled: dict[tuple[int, object], tuple] = {}  # see _memo
        self._static = _static_facts(domain, problem)
        self._index_cache: dict = {}
        self._typed: dict[tuple[str, ...], tuple[list[str], frozenset[str]]] = {}
        with collection_paused():
            self._start(problem, None)

    def _start(self, problem: Problem, base: Task | None) -> None:
        """Take ``problem``'s initial state and goal; ground the actions, or take the
        ``base`` task's; keep those a delete-relaxed plan reaches."""
        self.problem = problem
        self._display_keys: dict[int, tuple] = {}  # fact id -> its sort key in atoms()
        self._last_true: tuple[int, frozenset[int]] | None = None  # see _true
        init = frozenset(self.fact_id(fact) for fact in problem.init)
        self.init: int = _mask(init)
        self._budget("the goal")
        self.goal: cond.Condition = self._ground_formula(problem.goal, {}, simplify=True)
        self._goal_test = cond.compile_condition(self.goal)
        self._grounded: list[GroundAction] = (
            list(self._ground_all()) if base is None else base._grounded
        )
        self.actions: list[GroundAction] = _prune_unreachable(init, self._grounded)
        self._by_key: dict[str, dict[tuple[str, ...], GroundAction]]  # name -> args ->
        self._successors: _SuccessorGenerator
        if base is not None and base.actions == self.actions:
            self._by_key, self._successors = base._by_key, base._successors
        else:
            self._by_key = {name: {} for name in self.domain.actions}
            for a in self.actions:
                self._by_key[a.name][a.args] = a
            self._successors = _SuccessorGenerator(self.actions)
        self._on_demand: dict[tuple[str, tuple[str, ...]], GroundAction] = {}
        self._check = None  # the deadline was for grounding

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

    @property
    def instantiated(self) -> int:
        """How many actions grounding instantiated (before the unreachable were dropped)."""
        return len(self._grounded)

    def with_problem(self, problem: Problem) -> Task | None:
        """The task of ``problem``, another problem of this domain, without grounding again
        when it declares the same objects in the same order and the same static facts
        (a formalization loop's next round often does); else None. It shares this task's
        ground actions, so its fact ids extend this task's rather than start from its own
        initial state."""
        if (
            tuple(problem.objects.items()) != tuple(self.problem.objects.items())
            or _static_facts(self.domain, problem) != self._static
        ):
            return None
        task = copy.copy(self)
        task.facts, task._fact_ids, task._compiled = list(self.facts), dict(self._fact_ids), {}
        task._start(problem, self)
        return task

    # -- facts ---------------------------------------------------------------------
    def fact_id(self, fact: Atom) -> int:
        return self._id(fact.predicate, fact.args)

    def _id(self, predicate: str, args: tuple[str, ...]) -> int:
        fid = self._fact_ids.get((predicate, args))
        if fid is None:
            fid = len(self.facts)
            if fid == self.limits.max_ground_facts:  # a state is a bitset of facts
                self.limits.check(
                    "max_ground_facts", fid + 1, "problem", f"ground facts ({self._size()})"
                )
            self._fact_ids[(predicate, args)] = fid
            self.facts.append(Atom(predicate, args))
        return fid

    def _size(self) -> str:
        """The task's size, for a refusal: its objects and the facts named so far."""
        return f"{len(self.objects):,} objects, {len(self.facts):,} facts named so far"

    def atoms(self, state: int) -> list[Atom]:
        """The facts true in ``state``, in a stable order (predicate, then objects)."""
        facts = self.facts
        return [facts[i] for i in self.true_ids(state)]

    def true_ids(self, state: int) -> list[int]:
        """The ids of the facts true in ``state``, in the order of :meth:`atoms`."""
        facts, keys = self._true(state), self._display_keys
        for fid in facts.difference(keys):  # facts never shown before
            fact = self.facts[fid]
            keys[fid] = (
                self._predicate_order.get(fact.predicate, len(self._predicate_order)),
                tuple([self._object_order.get(a, len(self._object_order)) for a in fact.args]),
                fid,
            )
        return sorted(facts, key=keys.__getitem__)

    def _true(self, state: int) -> frozenset[int]:
        """The ids of the facts true in ``state``. The last state asked about is kept, so
        a state one step away costs the facts that changed (and a few word-wide bitwise
        operations), not a pass over every fact."""
        last = self._last_true
        if last is not None and last[0] == state:
            return last[1]
        changed = 0 if last is None else state ^ last[0]
        if last is not None and changed.bit_count() <= _FEW_CHANGES:
            flipped = []
            while changed:
                fid = changed.bit_length() - 1
                changed ^= 1 << fid
                flipped.append(fid)
            facts = last[1].symmetric_difference(flipped)
        else:
            facts = frozenset(true_fact_ids(state))
        self._last_true = (state, facts)
        return facts

    # -- the dynamics --------------------------------------------------------------
    def applicable(self, state: int) -> list[GroundAction]:
        """The actions applicable in ``state``, in grounding order."""
        return self._successors.applicable(state, self._true)

    def apply(self, state: int, action: GroundAction) -> int:
        return action.apply(state)

    def is_goal(self, state: int) -> bool:
        return self._goal_test(state)

    def unmet(self, state: int, action: GroundAction) -> list[UnmetFact]:
        """The precondition facts that keep ``action`` from applying in ``state``."""
        return self._unmet(action.precondition, state)

    def unmet_goal(self, state: int) -> list[UnmetFact]:
        return self._unmet(self.goal, state)

    def _unmet(self, condition, state: int) -> list[UnmetFact]:
        return [
            UnmetFact(self.facts[fid], wanted)
            for fid, wanted in cond.unmet_literals(condition, state)
        ]

    def action(self, name: str, args: tuple[str, ...] | list[str]) -> GroundAction:
        """The ground action ``name(args)``, instantiated on demand if grounding pruned it.

        Raises :class:`ActionLookupError` for an unknown action or object, a wrong
        number of arguments or an argument of the wrong type.
        """
        name, args = name.lower(), tuple(a.lower() for a in args)
        found = self._by_key.get(name, {}).get(args) or self._on_demand.get((name, args))
        if found is not None:
            return found
        problems = self.lookup_problems(name, args)
        if problems:
            kind, message = problems[0]
            raise ActionLookupError(
                "unknown" if kind.startswith("unknown") else "malformed", message
            )
        schema = self.domain.actions[name]
        self._budget(f"action {quote(name)}")
        binding = dict(zip((p.name for p in schema.params), args, strict=True))
        grounded = self._instantiator(schema, simplify=False)(binding)
        self._on_demand[(name, args)] = grounded
        return grounded

    def lookup_problems(
        self, name: str, args: tuple[str, ...] | list[str]
    ) -> list[tuple[str, str]]:
        """What keeps ``name(args)`` from naming an action of this task, as ``(kind,
        message)`` pairs: ``unknown_action`` or ``arity`` alone, else every argument's
        ``unknown_object`` or ``type`` problem; [] when it names one."""
        schema = self.domain.actions.get(name)
        if schema is None:
            return [("unknown_action", f"unknown action {quote(name)}")]
        if len(args) != len(schema.params):
            return [
                (
                    "arity",
                    f"{quote(name)} takes {len(schema.params)} argument(s), {len(args)} given",
                )
            ]
        problems = []
        for arg, param in zip(args, schema.params, strict=True):
            if arg not in self.objects:
                problems.append(("unknown_object", f"unknown object {quote(arg)}"))
            elif not self.domain.is_subtype(self.objects[arg], param.types):
                problems.append(
                    (
                        "type",
                        f"{quote(arg)} is a {self.objects[arg]}, but parameter "
                        f"{param.name} of {quote(name)} must be "
                        f"{' or '.join(param.types)}",
                    )
                )
        return problems

    # -- grounding -----------------------------------------------------------------
    def _ground_all(self) -> Iterator[GroundAction]:
        count = 0
        for schema in self.domain.actions.values():
            conjuncts = _conjuncts(schema.precondition)
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
                        f"ground actions (at {quote(schema.name)}; {self._size()})",
                    )
                action = instantiate(binding)
                if action.extra != _NEVER:
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

    def objects_of(self, types: tuple[str, ...]) -> list[str]:
        return self._objects_of(types)[0]

    def _objects_of(self, types: tuple[str, ...]) -> tuple[list[str], frozenset[str]]:
        """The objects of ``types`` in declaration order, and as a set."""
        found = self._typed.get(types)
        if found is None:
            kinds = {t for t in set(self.objects.values()) if self.domain.is_subtype(t, types)}
            typed = [o for o, t in self.objects.items() if t in kinds]
            found = self._typed[types] = (typed, frozenset(typed))
        return found

    def _bindings(
        self, params: tuple[Param, ...], conjuncts, binding, budget: int | None = None
    ) -> Iterator[dict]:
        """Every binding of ``params`` that the static conjuncts allow, in the order of
        nested loops over the parameters in declaration order and the objects in
        declaration order.

        The parameters are bound in a join order (see :meth:`_join_order`); when it is not
        the declared one, the bindings are sorted back, holding at most ``budget`` + 1 of
        them (the caller refuses more)."""
        if not all(self.objects_of(p.types) for p in params):
            return
        statics, bound = self._statics(conjuncts), frozenset(binding)
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
        rank = self._object_order
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
                (self._static_index(f.predicate, slot), f.args[:slot] + f.args[slot + 1 :])
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
                for obj in self.objects_of(param.types):
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
            index = self._static_index(formula.predicate, slot)
            expected = min(expected, len(self._static[formula.predicate]) / max(1, len(index)))
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

    def _candidates(self, lookups, pool: list[str], allowed: frozenset[str], binding) -> list[str]:
        """Objects for a parameter: from the smallest static fact index group that
        applies, within its pool; else its pool."""
        best = None
        for index, terms in lookups:
            values = index.get(tuple([binding.get(t, t) for t in terms]), ())
            if best is None or len(values) < len(best):
                best = values
        if best is None:
            return pool
        if len(pool) == len(self.objects):
            return best
        return [o for o in best if o in allowed]

    def _pool(self, param: Param, pools) -> tuple[list[str], frozenset[str]]:
        """The objects ``param`` may take before the index: its pool or its typed objects."""
        return pools.get(param.name) or self._objects_of(param.types)

    def _static_index(self, predicate: str, slot: int) -> dict:
        index = self._index_cache.get((predicate, slot))
        if index is None:
            index = {}
            for args in self._static[predicate]:
                rest = args[:slot] + args[slot + 1 :]
                index.setdefault(rest, []).append(args[slot])
            for values in index.values():
                values.sort(key=self._object_order.__getitem__)
            self._index_cache[(predicate, slot)] = index
        return index

    def _unchecked(self, schema) -> Formula:
        """The precondition of ``schema`` without the static conjuncts on its parameters,
        which :meth:`_bindings` checks."""

        def unchecked():
            names = {p.name for p in schema.params}
            return And(
                tuple(
                    c
                    for c in _conjuncts(schema.precondition)
                    if (check := self._static_check(c)) is None or not names & set(_terms(check[1]))
                )
            )

        return self._memo(schema, "unchecked", unchecked)

    def _statics(self, conjuncts: list[Formula]) -> list[tuple[bool, Formula]]:
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
            return formula.predicate in self._static
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
        """``make()``, computed once per (object, kind) for this task."""
        entry = self._compiled.get((id(key_object), kind))
        if entry is None or entry[0] is not key_object:  # the object guards against id reuse
            entry = self._compiled[(id(key_object), kind)] = (key_object, make())
        return entry[1]

    def _compile(self, f: Formula, simplify: bool):
        if isinstance(f, Atom):
            predicate, terms = f.predicate, f.args
            if simplify and predicate in self._static:
                facts = self._static[predicate]
                return lambda b: tuple([b.get(t, t) for t in terms]) in facts
            ids, new_id = self._fact_ids, self._id

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
        if isinstance(f, (Exists, Forall)) and not all(self.objects_of(p.types) for p in f.params):
            return lambda b: isinstance(f, Forall)  # over a type without objects
        if isinstance(f, Exists):
            body, params, conjuncts = self._grounder(f.body, simplify), f.params, _conjuncts(f.body)
            return lambda b: cond.disjoin(body(x) for x in self._bindings(params, conjuncts, b))
        if isinstance(f, Forall):
            body, params = self._grounder(f.body, simplify), f.params
            return lambda b: cond.conjoin(body(x) for x in self._all_bindings(params, b))
        raise TypeError(f"not a formula: {f!r}")

    def _all_bindings(self, params, binding) -> Iterator[dict]:
        """Every binding of the variables ``params`` of a forall, counted before any."""
        pools = [self.objects_of(p.types) for p in params]
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
        ids, new_id = self._fact_ids, self._id

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
                (cond.compile_condition(condition), condition, _mask(c_add), _mask(c_delete))
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


class _SuccessorGenerator:
    """Finds applicable actions by looking only at those keyed by a true fact.

    Each action is keyed by its positive precondition fact shared with the fewest
    other actions; a state's true facts select the candidates, tested against the set
    of them. Below ``LINEAR_LIMIT`` actions a plain scan of the masks is faster, and is
    used.
    """

    LINEAR_LIMIT = 256

    def __init__(self, actions: list[GroundAction]):
        self.actions = actions
        self.linear = (
            [(a.pre_pos, a.pre_neg, a.extra_test, a) for a in actions]
            if len(actions) <= self.LINEAR_LIMIT
            else None
        )
        uses: dict[int, int] = {}
        for action in actions:
            for fid in action.pre:
                uses[fid] = uses.get(fid, 0) + 1
        self.groups: dict[int, list[int]] = {}
        self.unkeyed: list[int] = []
        for index, a in enumerate(actions):
            if a.pre:
                self.groups.setdefault(min(a.pre, key=uses.__getitem__), []).append(index)
            else:
                self.unkeyed.append(index)

    def applicable(self, state: int, true: Callable[[int], frozenset[int]]) -> list[GroundAction]:
        """The actions applicable in ``state``, whose true fact ids ``true(state)`` gives
        (asked only above the linear limit)."""
        if self.linear is not None:
            return [
                a
                for pos, neg, test, a in self.linear
                if state & pos == pos and not state & neg and (test is None or test(state))
            ]
        facts = true(state)
        actions, groups = self.actions, self.groups
        found = [i for i in self.unkeyed if _holds(actions[i], facts, state)]
        for fid in facts:
            group = groups.get(fid)
            if group:
                found.extend(i for i in group if _holds(actions[i], facts, state))
        found.sort()
        return [actions[i] for i in found]


def _holds(action: GroundAction, facts: frozenset[int], state: int) -> bool:
    """Whether ``action`` applies in ``state``, whose true fact ids are ``facts``."""
    return (
        facts.issuperset(action.pre)
        and facts.isdisjoint(action.pre_not)
        and (action.extra_test is None or action.extra_test(state))
    )


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def true_fact_ids(state: int) -> list[int]:
    """The ids of the facts true in ``state``, highest first: one scan of its binary
    digits in C, however wide the state."""
    digits = bin(state)
    top = len(digits) - 1
    found = []
    at = digits.find("1", 2)
    while at != -1:
        found.append(top - at)
        at = digits.find("1", at + 1)
    return found


def _static_facts(domain: Domain, problem: Problem) -> dict[str, set[tuple[str, ...]]]:
    """The arguments of each static predicate's (one no action changes) initial facts."""
    static: dict[str, set[tuple[str, ...]]] = {
        p: set() for p in set(domain.predicates) - domain.changed_predicates()
    }
    for fact in problem.init:
        if fact.predicate in static:
            static[fact.predicate].add(fact.args)
    return static


_GROUNDED = threading.local()  # per thread: a Task grows some of its indexes lazily
GROUNDED_PER_THREAD = 4  # tasks kept by each thread (a 100-block one is tens of MB)


def ground(
    domain: Domain, problem: Problem, limits: Limits = DEFAULT_LIMITS, check: Check | None = None
) -> Task:
    """Ground ``problem`` of ``domain`` into a :class:`Task` within ``limits`` (such as
    ``max_ground_actions``), calling ``check`` now and then while it grounds (see
    :class:`Task`). Grounding the same Domain and Problem objects again in the same thread
    returns the same Task, deadline or not (the reader returns the same objects for the
    same text, so reading and grounding a task twice costs once); each thread keeps its
    last :data:`GROUNDED_PER_THREAD`, and a grounding that ``check`` stops keeps nothing."""
    memo = getattr(_GROUNDED, "memo", None)
    if memo is None:
        memo = _GROUNDED.memo = Memo(GROUNDED_PER_THREAD)
    kept_domain, kept_problem, task = memo.get(
        (id(domain), id(problem), limits),
        lambda: (domain, problem, Task(domain, problem, limits, check)),
    )
    if kept_domain is not domain or kept_problem is not problem:  # ids reused since
        return Task(domain, problem, limits, check)
    return task


def _conjuncts(f: Formula) -> list[Formula]:
    if isinstance(f, And):
        return [c for part in f.args for c in _conjuncts(part)]
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


def _prune_unreachable(init: frozenset[int], actions: list[GroundAction]) -> list[GroundAction]:
    """Drop actions whose positive preconditions no delete-relaxed plan reaches: each
    action waits on its unreached precondition facts and each fact is reached once."""
    waiting: dict[int, list[int]] = {}  # fact -> the actions it is missing from
    missing = []
    ready = []
    for i, a in enumerate(actions):
        needs = [fid for fid in a.pre if fid not in init]
        missing.append(len(needs))
        for fid in needs:
            waiting.setdefault(fid, []).append(i)
        if not needs:
            ready.append(i)
    reached = set(init)
    while ready:
        a = actions[ready.pop()]
        gained = list(a.adds)
        for _, _, c_add, _ in a.conditional:
            gained.extend(_bits(c_add))
        for fid in gained:
            if fid in reached:
                continue
            reached.add(fid)
            for i in waiting.pop(fid, ()):
                missing[i] -= 1
                if not missing[i]:
                    ready.append(i)
    return [a for a, m in zip(actions, missing, strict=True) if not m]
