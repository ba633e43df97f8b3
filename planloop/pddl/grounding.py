"""Grounding: a domain and a problem become a :class:`Task` over integer fact ids.

Static facts (of predicates no action changes) prune action parameters and
quantifiers while grounding; a delete-relaxed reachability pass then drops actions
that can never fire. States are Python ints used as bitsets.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Iterator

from . import conditions as cond
from .diagnostics import quote
from .model import (
    And, Atom, Domain, Effect, Equals, Exists, Forall, ForallEffect, Formula, Imply, Literal, Not,
    Or, Param, Problem, When,
)
from .source import Limits


class GroundAction:
    """One action with its arguments bound, compiled to masks and tests."""

    __slots__ = ("name", "args", "text", "precondition", "pre_pos", "pre_neg", "extra_test",
                 "add", "delete", "conditional")

    def __init__(self, name: str, args: tuple[str, ...], precondition: cond.Condition,
                 add: int, delete: int, conditional: tuple):
        self.name, self.args = name, args
        self.text = "(" + " ".join((name,) + args) + ")"
        self.precondition = precondition
        masks = cond.literal_masks(precondition)
        self.pre_pos, self.pre_neg, rest = masks if masks else (0, 0, (False,))
        self.extra_test = cond.compile_condition(cond.conjoin(rest)) if rest else None
        self.add, self.delete = add, delete
        self.conditional = conditional  # ((test, condition, add, delete), ...)

    def applicable(self, state: int) -> bool:
        return (state & self.pre_pos == self.pre_pos and not state & self.pre_neg
                and (self.extra_test is None or self.extra_test(state)))

    def apply(self, state: int) -> int:
        if not self.conditional:
            return (state & ~self.delete) | self.add
        add, delete = self.add, self.delete
        for test, _, c_add, c_delete in self.conditional:
            if test(state):
                add |= c_add
                delete |= c_delete
        return (state & ~delete) | add

    def __repr__(self) -> str:
        return f"GroundAction{self.text}"


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
    """A grounded planning task: facts, actions, initial state and goal."""

    def __init__(self, domain: Domain, problem: Problem, limits: Limits = Limits()):
        self.domain, self.problem = domain, problem
        self.limits = limits
        self.objects: dict[str, str] = dict(domain.constants)
        self.objects.update(problem.objects)
        self._object_order = {o: i for i, o in enumerate(self.objects)}
        self.facts: list[Atom] = []
        self._fact_ids: dict[Atom, int] = {}
        static = set(domain.predicates) - domain.changed_predicates()
        self._static: dict[str, set[tuple[str, ...]]] = {p: set() for p in static}
        self._index_cache: dict = {}
        self._typed_cache: dict[tuple[str, ...], list[str]] = {}
        self._display_order: list[int] = []
        for fact in problem.init:
            self.fact_id(fact)
            if fact.predicate in self._static:
                self._static[fact.predicate].add(fact.args)
        self.init: int = sum(1 << i for i in range(len(self.facts)))
        self.goal: cond.Condition = self._ground_formula(problem.goal, {}, simplify=True)
        self._goal_test = cond.compile_condition(self.goal)
        self.actions: list[GroundAction] = _prune_unreachable(self.init, list(self._ground_all()))
        self._by_key = {(a.name, a.args): a for a in self.actions}
        self._successors = _SuccessorGenerator(self.actions)
        self._on_demand: dict[tuple[str, tuple[str, ...]], GroundAction] = {}

    # -- facts ---------------------------------------------------------------------
    def fact_id(self, fact: Atom) -> int:
        fid = self._fact_ids.get(fact)
        if fid is None:
            fid = len(self.facts)
            if fid == self.limits.max_ground_facts:  # a state is a bitset of facts
                self.limits.check("max_ground_facts", fid + 1, "problem", "ground facts")
            self._fact_ids[fact] = fid
            self.facts.append(fact)
        return fid

    def atoms(self, state: int) -> list[Atom]:
        """The facts true in ``state``, in a stable order (predicate, then objects)."""
        facts = self.facts
        return [facts[i] for i in self.true_ids(state)]

    def true_ids(self, state: int) -> list[int]:
        """The ids of the facts true in ``state``, in the order of :meth:`atoms`."""
        if len(self._display_order) != len(self.facts):
            predicates = {p: i for i, p in enumerate(self.domain.predicates)}
            order = self._object_order
            self._display_order = sorted(range(len(self.facts)), key=lambda i: (
                predicates.get(self.facts[i].predicate, len(predicates)),
                [order.get(a, len(order)) for a in self.facts[i].args]))
        return [i for i in self._display_order if state >> i & 1]

    # -- the dynamics --------------------------------------------------------------
    def applicable(self, state: int) -> list[GroundAction]:
        """The actions applicable in ``state``, in grounding order."""
        return self._successors.applicable(state)

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
        return [UnmetFact(self.facts[fid], wanted)
                for fid, wanted in cond.unmet_literals(condition, state)]

    def action(self, name: str, args: tuple[str, ...] | list[str]) -> GroundAction:
        """The ground action ``name(args)``, instantiated on demand if grounding pruned it.

        Raises :class:`ActionLookupError` for an unknown action or object, a wrong
        number of arguments or an argument of the wrong type.
        """
        name, args = name.lower(), tuple(a.lower() for a in args)
        found = self._by_key.get((name, args)) or self._on_demand.get((name, args))
        if found is not None:
            return found
        schema = self.domain.actions.get(name)
        if schema is None:
            raise ActionLookupError("unknown", f"unknown action {quote(name)}")
        if len(args) != len(schema.params):
            raise ActionLookupError(
                "malformed", f"{quote(name)} takes {len(schema.params)} argument(s), "
                             f"{len(args)} given")
        for arg, param in zip(args, schema.params):
            if arg not in self.objects:
                raise ActionLookupError("unknown", f"unknown object {quote(arg)}")
            if not self.domain.is_subtype(self.objects[arg], param.types):
                raise ActionLookupError(
                    "malformed", f"{quote(arg)} is a {self.objects[arg]}, but parameter "
                                 f"{param.name} of {quote(name)} must be "
                                 f"{' or '.join(param.types)}")
        binding = dict(zip((p.name for p in schema.params), args))
        grounded = self._instantiate(schema, binding, simplify=False)
        self._on_demand[(name, args)] = grounded
        return grounded

    # -- grounding -----------------------------------------------------------------
    def _ground_all(self) -> Iterator[GroundAction]:
        count = 0
        for schema in self.domain.actions.values():
            conjuncts = _conjuncts(schema.precondition)
            for binding in self._bindings(schema.params, conjuncts, {}):
                count += 1
                if count > self.limits.max_ground_actions:
                    self.limits.check("max_ground_actions", count, "problem",
                                      f"ground actions (at '{schema.name}')")
                action = self._instantiate(schema, binding, simplify=True)
                if action.precondition is not False:
                    yield action

    def _instantiate(self, schema, binding: dict[str, str], simplify: bool) -> GroundAction:
        precondition = self._ground_formula(schema.precondition, binding, simplify)
        add, delete, conditional = self._ground_effects(schema.effects, binding)
        args = tuple(binding[p.name] for p in schema.params)
        return GroundAction(schema.name, args, precondition, add, delete, tuple(conditional))

    def objects_of(self, types: tuple[str, ...]) -> list[str]:
        found = self._typed_cache.get(types)
        if found is None:
            found = self._typed_cache[types] = [
                o for o, t in self.objects.items() if self.domain.is_subtype(t, types)]
        return found

    def _bindings(self, params: tuple[Param, ...], conjuncts, binding) -> Iterator[dict]:
        """Every binding of ``params`` that the static conjuncts allow."""
        checks: list[list] = [[] for _ in params]
        position = {p.name: i for i, p in enumerate(params)}
        statics = []
        for c in conjuncts:
            check = self._static_check(c)
            if check is None:
                continue
            free = [position[t] for t in _terms(check[1]) if t in position]
            if free:
                checks[max(free)].append(check)
                statics.append(check)
        yield from self._extend(params, 0, dict(binding), checks, statics)

    def _extend(self, params, depth, binding, checks, statics) -> Iterator[dict]:
        if depth == len(params):
            yield dict(binding)
            return
        param = params[depth]
        candidates = self._candidates(param, binding, statics)
        for obj in candidates:
            binding[param.name] = obj
            if all(self._check(check, binding) for check in checks[depth]):
                yield from self._extend(params, depth + 1, binding, checks, statics)
        binding.pop(param.name, None)

    def _candidates(self, param: Param, binding, statics) -> list[str]:
        """Objects for ``param``: from a static fact index where one applies."""
        typed = self.objects_of(param.types)
        best = None
        for polarity, formula in statics:
            if not polarity or not isinstance(formula, Atom) or formula.args.count(param.name) != 1:
                continue
            if not all(not t.startswith("?") or t in binding or t == param.name
                       for t in formula.args):
                continue
            slot = formula.args.index(param.name)
            key = tuple(binding.get(t, t) for i, t in enumerate(formula.args) if i != slot)
            values = self._static_index(formula.predicate, slot).get(key, ())
            if best is None or len(values) < len(best):
                best = values
        if best is None:
            return typed
        allowed = set(typed)
        return [o for o in best if o in allowed]

    def _static_index(self, predicate: str, slot: int) -> dict:
        index = self._index_cache.get((predicate, slot))
        if index is None:
            index = {}
            for args in self._static[predicate]:
                rest = args[:slot] + args[slot + 1:]
                index.setdefault(rest, []).append(args[slot])
            for values in index.values():
                values.sort(key=self._object_order.__getitem__)
            self._index_cache[(predicate, slot)] = index
        return index

    def _static_check(self, formula: Formula):
        """(polarity, formula) if ``formula`` can be decided from static facts alone."""
        polarity = True
        if isinstance(formula, Not):
            polarity, formula = False, formula.arg
        if isinstance(formula, Equals) or (isinstance(formula, Atom)
                                           and formula.predicate in self._static):
            return polarity, formula
        return None

    def _check(self, check, binding) -> bool:
        polarity, formula = check
        return self._static_value(formula, binding) == polarity

    def _static_value(self, formula, binding) -> bool:
        if isinstance(formula, Equals):
            return binding.get(formula.left, formula.left) == binding.get(formula.right,
                                                                           formula.right)
        return tuple(binding.get(t, t) for t in formula.args) in self._static[formula.predicate]

    def _ground_formula(self, f: Formula, binding, simplify: bool) -> cond.Condition:
        if isinstance(f, Atom):
            if simplify and f.predicate in self._static:
                return self._static_value(f, binding)
            return cond.atom(self.fact_id(Atom(f.predicate,
                                               tuple(binding.get(t, t) for t in f.args))))
        if isinstance(f, Equals):
            return self._static_value(f, binding)
        if isinstance(f, Not):
            return cond.negate(self._ground_formula(f.arg, binding, simplify))
        if isinstance(f, And):
            return cond.conjoin(self._ground_formula(p, binding, simplify) for p in f.args)
        if isinstance(f, Or):
            return cond.disjoin(self._ground_formula(p, binding, simplify) for p in f.args)
        if isinstance(f, Imply):
            return cond.disjoin([cond.negate(self._ground_formula(f.condition, binding, simplify)),
                                 self._ground_formula(f.consequence, binding, simplify)])
        if isinstance(f, Exists):
            return cond.disjoin(self._ground_formula(f.body, b, simplify)
                                for b in self._bindings(f.params, _conjuncts(f.body), binding))
        if isinstance(f, Forall):
            return cond.conjoin(self._ground_formula(f.body, b, simplify)
                                for b in self._all_bindings(f.params, binding))
        raise TypeError(f"not a formula: {f!r}")

    def _all_bindings(self, params, binding) -> Iterator[dict]:
        pools = [self.objects_of(p.types) for p in params]
        for values in product(*pools):
            inner = dict(binding)
            inner.update(zip((p.name for p in params), values))
            yield inner

    def _ground_effects(self, effects: tuple[Effect, ...], binding):
        add = delete = 0
        conditional = []
        for effect in effects:
            if isinstance(effect, Literal):
                bit = 1 << self.fact_id(Atom(effect.atom.predicate,
                                             tuple(binding.get(t, t) for t in effect.atom.args)))
                if effect.negated:
                    delete |= bit
                else:
                    add |= bit
            elif isinstance(effect, When):
                condition = self._ground_formula(effect.condition, binding, simplify=True)
                if condition is False:
                    continue
                c_add, c_delete, nested = self._ground_effects(effect.effects, binding)
                if condition is True:
                    add, delete = add | c_add, delete | c_delete
                    conditional.extend(nested)
                    continue
                conditional.append((cond.compile_condition(condition), condition, c_add, c_delete))
                for _, inner, n_add, n_delete in nested:
                    both = cond.conjoin([condition, inner])
                    conditional.append((cond.compile_condition(both), both, n_add, n_delete))
            elif isinstance(effect, ForallEffect):
                for inner_binding in self._all_bindings(effect.params, binding):
                    f_add, f_delete, nested = self._ground_effects(effect.effects, inner_binding)
                    add, delete = add | f_add, delete | f_delete
                    conditional.extend(nested)
        return add, delete, conditional


class _SuccessorGenerator:
    """Finds applicable actions by looking only at those keyed by a true fact.

    Each action is keyed by its positive precondition fact shared with the fewest
    other actions; a state's true facts select the candidates to test. Below
    ``LINEAR_LIMIT`` actions a plain scan is faster, and is used.
    """

    LINEAR_LIMIT = 256

    def __init__(self, actions: list[GroundAction]):
        self.actions = actions
        self.linear = [(a.pre_pos, a.pre_neg, a.extra_test, a) for a in actions] \
            if len(actions) <= self.LINEAR_LIMIT else None
        uses: dict[int, int] = {}
        for action in actions:
            for fid in _bits(action.pre_pos):
                uses[fid] = uses.get(fid, 0) + 1
        self.groups: dict[int, list] = {}
        self.unkeyed = []
        for index, a in enumerate(actions):
            entry = (index, a.pre_pos, a.pre_neg, a.extra_test)
            if a.pre_pos:
                key = min(_bits(a.pre_pos), key=uses.__getitem__)
                self.groups.setdefault(key, []).append(entry)
            else:
                self.unkeyed.append(entry)

    def applicable(self, state: int) -> list[GroundAction]:
        if self.linear is not None:
            return [a for pos, neg, test, a in self.linear
                    if state & pos == pos and not state & neg and (test is None or test(state))]
        found = [i for i, pos, neg, test in self.unkeyed
                 if not state & neg and (test is None or test(state))]
        groups = self.groups
        rest = state
        while rest:
            low = rest & -rest
            rest ^= low
            group = groups.get(low.bit_length() - 1)
            if group:
                found.extend(i for i, pos, neg, test in group
                             if state & pos == pos and not state & neg
                             and (test is None or test(state)))
        found.sort()
        actions = self.actions
        return [actions[i] for i in found]


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def ground(domain: Domain, problem: Problem, limits: Limits = Limits()) -> Task:
    """Ground ``problem`` of ``domain`` into a :class:`Task` of at most
    ``limits.max_ground_actions`` actions."""
    return Task(domain, problem, limits)


def _conjuncts(f: Formula) -> list[Formula]:
    if isinstance(f, And):
        return [c for part in f.args for c in _conjuncts(part)]
    return [f]


def _terms(f) -> tuple[str, ...]:
    return (f.left, f.right) if isinstance(f, Equals) else f.args


def _prune_unreachable(init: int, actions: list[GroundAction]) -> list[GroundAction]:
    """Drop actions whose positive preconditions no delete-relaxed plan reaches."""
    reached = init
    pending = actions
    while True:
        still = []
        grew = False
        for a in pending:
            if reached & a.pre_pos == a.pre_pos:
                gained = a.add
                for _, _, c_add, _ in a.conditional:
                    gained |= c_add
                if gained & ~reached:
                    reached |= gained
                    grew = True
            else:
                still.append(a)
        if not grew or not still:
            break
        pending = still
    return [a for a in actions if reached & a.pre_pos == a.pre_pos]
