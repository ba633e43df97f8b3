"""The contingent suites' other dialects, read into the form the rest of planloop plays
(sensing actions, ``unknown`` atoms and ``oneof`` / ``or`` clauses); :mod:`.domain_reader`
and :mod:`.problem_reader` call these when they read with ``contingent=True``.

- K-replanner's (Bonet and Geffner): a domain's ``(:sensor NAME :parameters (...)
  :condition C :sense atom ...)`` is a sensing action NAME (precondition C, observing the
  atoms), as PO-PRP's ``domain-clg.pddl`` writes the same domain: the agent senses by a
  command, not after every step. In ``:init``, ``(invariant l ...)`` and ``(at-least-one
  l ...)`` are ``or`` clauses, ``(exactly-one l ...)`` a ``oneof``, ``(at-most-one l
  ...)`` an ``at-most-one`` clause (kept whole: n literals, not a clause per pair); an
  atom those name only negated is false, as K-replanner reads it.
- cp2fsc's multi-valued variables: ``(:variable NAME value ...)`` or ``(:variable (NAME
  ?x - t ...) value ...)``, a value an atom, ``(forall (?y - t) atom)`` or ``(forall (?y
  - t) (when C atom))`` with C over facts no action changes; for each binding exactly one
  value holds (a single value may hold or not), unknown unless ``:init`` names it. An
  action's ``:sensing-model`` (rules ``L``, ``(when C L)``, ``(forall (...) rule)``,
  ``(and rule ...)``) observes each state fact L; for L of an ``:obs-variable`` it observes
  the one fact of C that may change or, when C is one of several facts no action changes,
  L itself, a fact defined by them (a constraint of the initial belief). A rule's forall
  variables become parameters and its fixed conditions preconditions. An action that also
  changes the state keeps its effects, and its sensing becomes ``NAME-sense``, applicable
  in the states the action leads to (the precondition's facts its effects leave alone and
  its unconditional effects).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from itertools import product
from typing import TYPE_CHECKING

from .diagnostics import quote
from .model import (
    Action,
    And,
    Atom,
    Derived,
    Domain,
    Effect,
    Equals,
    Exists,
    Family,
    Forall,
    ForallEffect,
    Formula,
    Imply,
    InitClause,
    Literal,
    Not,
    Or,
    Param,
    Variable,
    When,
    map_formula,
)
from .sexpr import SList, Sym

if TYPE_CHECKING:
    from .formula_reader import FormulaReader
    from .reading import Reader

_KEYS = {":parameters": ":parameters", ":condition": ":precondition", ":sense": ":observe"}
INVARIANTS = {  # K-replanner's invariant -> the kind of clause it is
    "invariant": "or",
    "at-least-one": "or",
    "exactly-one": "oneof",
    "at-most-one": "at-most-one",
}


@dataclass(frozen=True)
class Rule:
    """One rule of a sensing model or a variable's value: for each binding of ``params``
    under ``conditions`` (conjuncts), ``literal``."""

    params: tuple[Param, ...]
    conditions: tuple[Formula, ...]
    literal: Literal
    node: SList


# -- K-replanner ----------------------------------------------------------------------
def read_sensor(r: Reader, fr: FormulaReader, node: SList) -> Action | None:
    """A ``(:sensor NAME :parameters (...) :condition C :sense atom ...)`` as the sensing
    action NAME."""
    if len(node) < 2 or not isinstance(node[1], Sym) or node[1].startswith(":"):
        r.error("expected '(:sensor NAME :parameters (...) :condition C :sense ATOM)'", node)
        return None
    name, fields = node[1], {}
    items = node[2:]
    i = 0
    while i < len(items):
        key = items[i]
        if not isinstance(key, Sym) or key not in _KEYS:
            r.error(
                f"expected ':parameters', ':condition' or ':sense' in sensor {quote(name)}", key
            )
            return None
        values = []
        i += 1
        while i < len(items) and not (isinstance(items[i], Sym) and items[i].startswith(":")):
            values.append(items[i])
            i += 1
        if not values:
            r.error(f"{quote(key)} of sensor {quote(name)} has no value", key)
            return None
        if key != ":sense" and len(values) > 1:
            r.error(f"{quote(key)} of sensor {quote(name)} takes one value", values[1])
        if _KEYS[key] in fields:
            r.error(f"duplicate {quote(key)} in sensor {quote(name)}", key)
        fields[_KEYS[key]] = values
    if ":observe" not in fields:
        r.error(f"sensor {quote(name)} has no ':sense'", name)
        return None
    params, scope = fr.params(fields.get(":parameters", [SList()])[0], {})
    condition = fields.get(":precondition")
    precondition = fr.formula(condition[0], scope) if condition else And(())
    return Action(str(name), params, precondition, (), observed(r, fr, fields[":observe"], scope))


def observed(r: Reader, fr: FormulaReader, nodes: list, scope) -> tuple[Atom, ...]:
    """The atoms an ``:observe`` or ``:sense`` names: atoms, or one ``and`` of atoms."""
    if len(nodes) == 1 and isinstance(nodes[0], SList) and nodes[0] and nodes[0][0] == "and":
        nodes = nodes[0][1:]
    atoms = []
    for part in nodes:
        if isinstance(part, SList) and part and part[0] == "probabilistic":
            r.error(
                "probabilistic (noisy) observations ('probabilistic') are not "
                "supported: a sensing action tells the true value",
                part,
            )
            continue
        if not isinstance(part, SList) or not part or part[0] in CONNECTIVES:
            r.error("':observe' takes an atom, several atoms or an 'and' of atoms", part)
            continue
        atom = fr.atom(part, scope)
        if atom is not None:
            atoms.append(atom)
    return tuple(dict.fromkeys(atoms))


# -- cp2fsc's multi-valued variables ---------------------------------------------------
def rules(r: Reader, fr: FormulaReader, node, scope, what: str) -> list[Rule]:
    """The rules of a sensing model or of a variable's value (``what``, for messages)."""
    found: list[Rule] = []
    _rules(r, fr, node, scope, (), (), found, what)
    return found


def _rules(r, fr, node, scope, params, conditions, found, what) -> None:
    if isinstance(node, SList) and not node:
        return
    head = node[0] if isinstance(node, SList) else None
    if head == "and":
        for part in node[1:]:
            _rules(r, fr, part, scope, params, conditions, found, what)
    elif head == "forall" and len(node) == 3:
        more, inner = fr.params(node[1], scope)
        _rules(r, fr, node[2], inner, params + more, conditions, found, what)
    elif head == "when" and len(node) == 3:
        more = conjuncts(fr.formula(node[1], scope))
        _rules(r, fr, node[2], scope, params, conditions + more, found, what)
    elif head == "not" and len(node) == 2 and isinstance(node[1], SList) and node[1]:
        atom = fr.atom(node[1], scope) if node[1][0] not in CONNECTIVES else None
        if atom is None and node[1][0] in CONNECTIVES:
            r.error(f"{what} negates one atom: '(not ATOM)'", node)
        elif atom is not None:
            found.append(Rule(params, conditions, Literal(atom, True), node))
    elif isinstance(node, SList) and isinstance(head, Sym) and head not in CONNECTIVES:
        atom = fr.atom(node, scope)
        if atom is not None:
            found.append(Rule(params, conditions, Literal(atom), node))
    else:
        r.error(
            f"{what} takes atoms, '(not ATOM)', '(and ...)', '(forall (?x - t) ...)' "
            f"and '(when CONDITION ...)'",
            node,
        )


def read_variable(r: Reader, fr: FormulaReader, node: SList) -> Variable | None:
    """A ``(:variable NAME value ...)`` or ``(:variable (NAME ?x - t ...) value ...)``
    (or ``:obs-variable``); None, with an error, when malformed."""
    head = node[1] if len(node) > 2 else None
    params: tuple[Param, ...] = ()
    scope: dict = {}
    if isinstance(head, Sym):
        name = str(head)
    elif isinstance(head, SList) and head and isinstance(head[0], Sym):
        listed = SList(head[1:])
        listed.line, listed.col = head.line, head.col
        params, scope = fr.params(listed, {})
        name = str(head[0])
    else:
        r.error(
            f"expected '({node[0]} NAME VALUE ...)' or '({node[0]} (NAME ?x - t) VALUE ...)'",
            node,
        )
        return None
    values = []
    for value in node[2:]:
        for rule in rules(r, fr, value, scope, f"a value of {quote(node[0])}"):
            if rule.literal.negated:
                r.error(f"a value of {quote(node[0])} is an atom, not its negation", rule.node)
            values.append(Family(rule.params, And(rule.conditions), rule.literal.atom))
    return Variable(name, params, tuple(values))


def check_values(r: Reader, variable: Variable, node: SList, fixed: set[str]) -> None:
    """An error unless each value's condition reads only ``fixed`` predicates (no action
    changes them, none is unknown) with no quantifier."""
    for value in variable.values:
        if not predicates(value.condition) <= fixed or not _plain(value.condition):
            r.error(
                f"a value of {quote(variable.name)} is chosen by a condition on facts that "
                f"change or are unknown, or by a quantifier: only facts no action changes, "
                f"with 'and', 'or' and 'not', may choose the values",
                node,
            )
            return


def compile_sensing(
    r: Reader,
    actions: dict[str, Action],
    models: dict[str, tuple[list[Rule], dict]],
    observable: set[str],
    fixed: set[str],
) -> tuple[dict[str, Action], tuple[Derived, ...]]:
    """``actions`` with each sensing model (action name -> its rules and scope) compiled
    (see the module's docstring), and the facts the observations define."""
    changed = {lit.atom.predicate for a in actions.values() for lit in effect_literals(a.effects)}
    result: dict[str, Action] = {}
    defined: dict[str, tuple[Derived, ...]] = {}
    derived: list[Derived] = []
    for name, action in actions.items():
        result[name] = action
        if name not in models:
            continue
        found, scope = models[name]
        observations, definitions = _observations(
            r, action, found, scope, observable, fixed, changed
        )
        for predicate in sorted({d.atom.predicate for d in definitions}):
            mine = tuple(_canonical(d) for d in definitions if d.atom.predicate == predicate)
            if predicate not in defined:
                defined[predicate] = mine
                derived.extend(mine)
            elif defined[predicate] != mine:
                r.error(
                    f"the sensing model of {quote(name)} defines {quote(predicate)} otherwise "
                    f"than another action's does",
                    next(w.node for w in found if w.literal.atom.predicate == predicate),
                )
        if not observations:
            continue
        sensing = _sensing_action(action, observations)
        if action.effects:
            sensing_name = f"{name}-sense"
            while sensing_name in actions or sensing_name in result:
                sensing_name += "-sense"
            result[sensing_name] = replace(
                sensing, name=sensing_name, precondition=_after(action, sensing.precondition)
            )
        else:
            result[name] = sensing
    return result, tuple(derived)


@dataclass(frozen=True)
class _Observation:
    atom: Atom
    params: tuple[Param, ...]
    conditions: tuple[Formula, ...]  # over fixed facts


def _observations(r, action, found, scope, observable, fixed, changed):
    """What ``action``'s rules observe, and the facts they define."""
    own = {p.name for p in action.params}
    observations: list[_Observation] = []
    definitions: list[Derived] = []
    defined: set[str] = set()  # the observed predicates with a rule for a positive value
    positive = Counter(w.literal.atom.predicate for w in found if not w.literal.negated)
    for rule in sorted(found, key=lambda w: w.literal.negated):
        atom = rule.literal.atom
        still = [c for c in rule.conditions if predicates(c) <= fixed]
        moving = [c for c in rule.conditions if not predicates(c) <= fixed]
        if atom.predicate not in observable:
            if moving:
                r.error(
                    f"the sensing model of {quote(action.name)} observes {atom} under a "
                    f"condition on facts that change or are unknown: only facts no action "
                    f"changes may say when a state fact is observed",
                    rule.node,
                )
            else:
                observations.append(_Observation(atom, rule.params, tuple(still)))
            continue
        if not moving or (rule.literal.negated and atom.predicate in defined):
            continue  # tells nothing, or the complement of what a positive rule tells
        if not rule.literal.negated:
            defined.add(atom.predicate)
        fact = _atom_of(moving[0]) if len(moving) == 1 else None
        alone = positive[atom.predicate] < 2  # else the rules' conditions are one disjunction
        if fact is not None and alone and _variables(fact) <= _variables(atom) | own:
            observations.append(_Observation(fact, rule.params, tuple(still)))
        elif (
            fact is not None
            and not rule.literal.negated
            and fact.predicate not in changed
            and isinstance(moving[0], Atom)
            and all(
                _plain(c) and _variables(c) <= _variables(atom) | _names(rule.params) for c in still
            )
        ):
            head = tuple(
                _typed(v, scope, rule.params) for v in dict.fromkeys(atom.args) if v[0] == "?"
            )
            inner = tuple(p for p in rule.params if p.name not in _variables(atom))
            definitions.append(Derived(head, atom, Family(inner, And(tuple(still)), fact)))
            outer = tuple(p for p in rule.params if p.name in _variables(atom))
            observations.append(_Observation(atom, outer, ()))
        else:
            r.error(
                f"the sensing model of {quote(action.name)} observes {atom} when several facts "
                f"that change hold, or one that changes is among many: not supported (an "
                f"observation tells one fact that may change, or a fact defined by facts no "
                f"action changes)",
                rule.node,
            )
    return observations, definitions


def _sensing_action(action: Action, observations: list[_Observation]) -> Action:
    """``action`` as a sensing action: its parameters and those of the observations'
    rules (renamed apart where two differ in type), its precondition and their fixed
    conditions, the observed atoms."""
    params = list(action.params)
    types = {p.name: p.types for p in params}
    atoms, conditions = [], []
    for seen in observations:
        renaming = {}
        for p in seen.params:
            name = p.name
            while name in types and types[name] != p.types:
                name += "-"
            if name not in types:
                types[name] = p.types
                params.append(Param(name, p.types))
            if name != p.name:
                renaming[p.name] = name
        atoms.append(_renamed_atom(seen.atom, renaming))
        conditions += [_renamed(c, renaming) for c in seen.conditions]
    precondition = And(tuple(dict.fromkeys(conjuncts(action.precondition) + tuple(conditions))))
    return Action(action.name, tuple(params), precondition, (), tuple(dict.fromkeys(atoms)))


def _after(action: Action, sensing_pre: Formula) -> Formula:
    """The precondition of ``action``'s sensing in the states it leads to: the sensing
    precondition's conjuncts over facts the action's effects leave alone, and the
    action's unconditional effects."""
    touched = {lit.atom.predicate for lit in effect_literals(action.effects)}
    kept = [c for c in conjuncts(sensing_pre) if predicates(c).isdisjoint(touched)]
    made: list[Formula] = [
        Not(e.atom) if e.negated else e.atom for e in action.effects if isinstance(e, Literal)
    ]
    return And(tuple(dict.fromkeys(kept + made)))


# -- the problem side -------------------------------------------------------------------
class Expansion:
    """The bindings the variables and defined facts of a domain take over a problem's
    ``objects`` (name -> type), each parameter's objects found once; :meth:`count` tells
    how many bindings the expansion enumerates before it does."""

    def __init__(self, domain: Domain, objects: dict[str, str]):
        self.domain, self.objects = domain, objects
        self._pools: dict[tuple[str, ...], list[str]] = {}

    def pool(self, types: tuple[str, ...]) -> list[str]:
        found = self._pools.get(types)
        if found is None:
            is_subtype = self.domain.is_subtype
            found = self._pools[types] = [
                o for o, t in self.objects.items() if is_subtype(t, types)
            ]
        return found

    def size(self, params) -> int:
        """How many bindings ``params`` take."""
        return math.prod(len(self.pool(p.types)) for p in params)

    def count(self) -> int:
        """The bindings :func:`variable_init` and :func:`derived_init` enumerate: each
        variable's or defined fact's, and for each of them those of its values."""
        total = 0
        for variable in self.domain.variables:
            inner = sum(self.size(f.params) for f in variable.values)
            total += self.size(variable.params) * (1 + inner)
        for d in self.domain.derived:
            total += self.size(d.params) * (1 + self.size(d.facts.params))
        return total

    def bindings(self, params, outer: dict) -> Iterator[dict]:
        for values in product(*(self.pool(p.types) for p in params)):
            binding = dict(outer)
            binding.update(zip((p.name for p in params), values, strict=True))
            yield binding

    def family(self, family: Family, binding: dict, listed: set[Atom]) -> list[Atom]:
        if not family.params:  # one binding: the outer one
            return (
                [_ground(family.atom, binding)] if holds(family.condition, binding, listed) else []
            )
        return [
            _ground(family.atom, b)
            for b in self.bindings(family.params, binding)
            if holds(family.condition, b, listed)
        ]


def variable_init(
    expansion: Expansion, listed: set[Atom], denied: set[Atom]
) -> tuple[list[InitClause], list[Atom]]:
    """The ``oneof`` clauses and unknown atoms of the domain's variables over the
    expansion's objects: for each binding, the values ``:init`` does not deny, unless it
    lists one (then the values are known)."""
    clauses, unknown = [], []
    for variable in expansion.domain.variables:
        for binding in expansion.bindings(variable.params, {}):
            atoms = list(
                dict.fromkeys(
                    a for f in variable.values for a in expansion.family(f, binding, listed)
                )
            )
            if any(a in listed for a in atoms):
                continue
            free = [a for a in atoms if a not in denied]
            if len(atoms) == 1:
                unknown += free
            elif free:
                clauses.append(InitClause("oneof", tuple(Literal(a) for a in free)))
    return clauses, unknown


def derived_init(
    expansion: Expansion, listed: set[Atom], uncertain: set[Atom]
) -> tuple[list[InitClause], list[Atom]]:
    """The clauses saying each defined fact holds exactly when one of its facts does
    (over the expansion's objects), and the defined facts true in every world: of its
    facts, those ``uncertain`` count; one ``listed`` makes it true."""
    facts: dict[Atom, list[Atom]] = {}
    for d in expansion.domain.derived:
        for binding in expansion.bindings(d.params, {}):
            atom = _ground(d.atom, binding)
            facts.setdefault(atom, []).extend(expansion.family(d.facts, binding, listed))
    clauses, true = [], []
    for atom, found in facts.items():
        if any(f in listed and f not in uncertain for f in found):
            true.append(atom)
            continue
        free = [f for f in dict.fromkeys(found) if f in uncertain]
        if free:
            clauses.append(InitClause("or", (Literal(atom, True), *(Literal(f) for f in free))))
            clauses += [InitClause("or", (Literal(atom), Literal(f, True))) for f in free]
    return clauses, true


def holds(f: Formula, binding: dict, facts: set[Atom]) -> bool:
    """Whether the formula ``f`` (atoms, equality, not, and, or, imply) holds under
    ``binding`` when exactly ``facts`` are true."""
    if isinstance(f, Atom):
        return _ground(f, binding) in facts
    if isinstance(f, Equals):
        return binding.get(f.left, f.left) == binding.get(f.right, f.right)
    if isinstance(f, Not):
        return not holds(f.arg, binding, facts)
    if isinstance(f, And):
        return all(holds(a, binding, facts) for a in f.args)
    if isinstance(f, Or):
        return any(holds(a, binding, facts) for a in f.args)
    if isinstance(f, Imply):
        return not holds(f.condition, binding, facts) or holds(f.consequence, binding, facts)
    raise ValueError(f"a quantified condition ({type(f).__name__}) is read where none may be")


def _plain(f: Formula) -> bool:
    """Whether ``f`` has no quantifier."""
    if isinstance(f, (Exists, Forall)):
        return False
    if isinstance(f, Not):
        return _plain(f.arg)
    if isinstance(f, (And, Or)):
        return all(_plain(a) for a in f.args)
    if isinstance(f, Imply):
        return _plain(f.condition) and _plain(f.consequence)
    return True


# -- formulas ---------------------------------------------------------------------------
CONNECTIVES = frozenset(
    {"and", "or", "not", "imply", "exists", "forall", "when", "oneof", "unknown", "="}
)


def conjuncts(f: Formula) -> tuple[Formula, ...]:
    """The conjuncts of ``f``, nested ``and`` flattened."""
    if isinstance(f, And):
        return tuple(c for a in f.args for c in conjuncts(a))
    return (f,)


def predicates(f: Formula) -> set[str]:
    """The predicates ``f`` reads."""
    if isinstance(f, Atom):
        return {f.predicate}
    if isinstance(f, Equals):
        return set()
    if isinstance(f, Not):
        return predicates(f.arg)
    if isinstance(f, (And, Or)):
        return set().union(*(predicates(a) for a in f.args))
    if isinstance(f, Imply):
        return predicates(f.condition) | predicates(f.consequence)
    return predicates(f.body)


def _variables(f) -> set[str]:
    found: set[str] = set()

    def leaf(node):
        args = node.args if isinstance(node, Atom) else (node.left, node.right)
        found.update(a for a in args if a.startswith("?"))
        return node

    map_formula(f, leaf)
    return found


def _atom_of(f: Formula) -> Atom | None:
    """The atom of a literal formula (an atom or its negation), else None."""
    if isinstance(f, Not):
        f = f.arg
    return f if isinstance(f, Atom) else None


def _names(params) -> set[str]:
    return {p.name for p in params}


def _typed(name: str, scope: dict, params) -> Param:
    for p in params:
        if p.name == name:
            return p
    return Param(name, scope[name])


def _ground(atom: Atom, binding: dict) -> Atom:
    return Atom(atom.predicate, tuple(binding.get(t, t) for t in atom.args))


def _renamed_atom(atom: Atom, renaming: dict) -> Atom:
    return _ground(atom, renaming) if renaming else atom


def _renamed(f: Formula, renaming: dict) -> Formula:
    if not renaming:
        return f

    def leaf(node):
        if isinstance(node, Atom):
            return _ground(node, renaming)
        return Equals(renaming.get(node.left, node.left), renaming.get(node.right, node.right))

    def quantified(node, body):
        params = tuple(Param(renaming.get(p.name, p.name), p.types) for p in node.params)
        return type(node)(params, body)

    return map_formula(f, leaf, quantified)


def _canonical(d: Derived) -> Derived:
    """``d`` with its variables named by their order (to compare two definitions)."""
    names = {p.name: f"?a{i}" for i, p in enumerate(d.params)}
    names.update({p.name: f"?b{i}" for i, p in enumerate(d.facts.params)})
    family = Family(
        tuple(Param(names[p.name], p.types) for p in d.facts.params),
        _renamed(d.facts.condition, names),
        _ground(d.facts.atom, names),
    )
    return Derived(
        tuple(Param(names[p.name], p.types) for p in d.params), _ground(d.atom, names), family
    )


def effect_literals(effects: tuple[Effect, ...]) -> Iterator[Literal]:
    for effect in effects:
        if isinstance(effect, Literal):
            yield effect
        elif isinstance(effect, (When, ForallEffect)):
            yield from effect_literals(effect.effects)
