"""The model back to PDDL text that Fast Downward and other readers accept.

Two constructs the model allows but planners refuse are compiled away: a variable
typed ``(either a b)`` takes the types' nearest common ancestor, guarded by a static
predicate ``either-a-b`` (the problem lists its facts), and a ``when`` nested in a ``when``
(or holding a ``forall``) is flattened. Action costs are not kept by the model, so
the written domain is the unit-cost version of the one read.
"""

from __future__ import annotations

from collections.abc import Mapping

from .model import (
    ROOT_TYPE,
    Action,
    And,
    Atom,
    Domain,
    Effect,
    Equals,
    Exists,
    ForallEffect,
    Imply,
    Literal,
    Not,
    Or,
    Param,
    Problem,
    When,
    map_formula,
)


def _type_text(types: tuple[str, ...]) -> str:
    return types[0]


def either_predicate(types: tuple[str, ...]) -> str:
    return "either-" + "-".join(types)


class _EitherCompiler:
    """Rewrites ``(either a b)`` variables as the types' nearest common ancestor,
    guarded by the static predicate ``either-a-b``."""

    def __init__(self, domain: Domain):
        self.domain = domain
        self.found: dict[tuple[str, ...], None] = {}

    def params(self, params: tuple[Param, ...]) -> tuple[tuple[Param, ...], tuple[Atom, ...]]:
        out, guards = [], []
        for p in params:
            if len(p.types) == 1:
                out.append(p)
                continue
            self.found[p.types] = None
            out.append(Param(p.name, (self._common_ancestor(p.types),)))
            guards.append(Atom(either_predicate(p.types), (p.name,)))
        return tuple(out), tuple(guards)

    def _common_ancestor(self, types: tuple[str, ...]) -> str:
        chains = [self.domain.ancestors(t) for t in types]
        return next(t for t in chains[0] if all(t in chain for chain in chains[1:]))

    def formula(self, f):
        return map_formula(f, lambda leaf: leaf, self._quantified)

    def _quantified(self, f, body):
        params, guards = self.params(f.params)
        if guards:
            body = And(guards + (body,)) if isinstance(f, Exists) else Imply(And(guards), body)
        return type(f)(params, body)

    def effects(self, effects) -> tuple:
        out: list[Effect] = []
        for e in effects:
            if isinstance(e, When):
                out.append(When(self.formula(e.condition), self.effects(e.effects)))
            elif isinstance(e, ForallEffect):
                params, guards = self.params(e.params)
                inner = self.effects(e.effects)
                out.append(ForallEffect(params, (When(And(guards), inner),) if guards else inner))
            else:
                out.append(e)
        return tuple(out)

    def action(self, action: Action) -> Action:
        params, guards = self.params(action.params)
        precondition = self.formula(action.precondition)
        if guards:
            precondition = And(guards + (precondition,))
        return Action(action.name, params, precondition, _flatten(self.effects(action.effects)))


def _either_types(domain: Domain) -> list[tuple[str, ...]]:
    compiler = _EitherCompiler(domain)
    for action in domain.actions.values():
        compiler.action(action)
    return list(compiler.found)


def _typed(pairs, typed: bool) -> str:
    """``[(a, (t,)), (b, (t,))]`` -> ``a b - t``; grouped by type, in order."""
    if not typed:
        return " ".join(name for name, _ in pairs)
    parts: list[str] = []
    group: list[str] = []
    current: tuple[str, ...] = ()
    for name, types in pairs:
        if types != current and group:
            parts.append(" ".join(group) + " - " + _type_text(current))
            group = []
        current = types
        group.append(name)
    if group:
        parts.append(" ".join(group) + " - " + _type_text(current))
    return " ".join(parts)


def _params(params: tuple[Param, ...], typed: bool) -> str:
    return _typed([(p.name, p.types) for p in params], typed)


def formula_text(f, typed: bool = True) -> str:
    if isinstance(f, Atom):
        return str(f)
    if isinstance(f, Equals):
        return f"(= {f.left} {f.right})"
    if isinstance(f, Not):
        return f"(not {formula_text(f.arg, typed)})"
    if isinstance(f, (And, Or)):
        word = "and" if isinstance(f, And) else "or"
        return "(" + " ".join([word] + [formula_text(a, typed) for a in f.args]) + ")"
    if isinstance(f, Imply):
        return f"(imply {formula_text(f.condition, typed)} {formula_text(f.consequence, typed)})"
    word = "exists" if isinstance(f, Exists) else "forall"
    return f"({word} ({_params(f.params, typed)}) {formula_text(f.body, typed)})"


def _flatten(effects, condition=None) -> tuple:
    """Effects with no ``when`` inside a ``when``: conditions are conjoined, and a
    ``forall`` under a condition takes the condition inside."""
    out: list[Effect] = []
    literals: list[Literal] = []
    for e in effects:
        if isinstance(e, Literal):
            literals.append(e)
        elif isinstance(e, When):
            inner = e.condition if condition is None else And((condition, e.condition))
            out.extend(_flatten(e.effects, inner))
        else:
            out.append(ForallEffect(e.params, _flatten(e.effects, condition)))
    if literals:
        out[:0] = literals if condition is None else [When(condition, tuple(literals))]
    return tuple(out)


def effect_text(e, typed: bool = True) -> str:
    if isinstance(e, Literal):
        return f"(not {e.atom})" if e.negated else str(e.atom)
    if isinstance(e, When):
        return f"(when {formula_text(e.condition, typed)} {_effects_text(e.effects, typed)})"
    return f"(forall ({_params(e.params, typed)}) {_effects_text(e.effects, typed)})"


def _effects_text(effects, typed: bool) -> str:
    return "(and " + " ".join(effect_text(e, typed) for e in effects) + ")"


def _depths(types: Mapping[str, str]) -> dict[str, int]:
    """Each type of ``types`` (type -> parent, no cycle) -> how many types are above it;
    each type is walked once."""
    depth: dict[str, int] = {}
    for start in types:
        path: list[str] = []
        t = start
        while t in types and t not in depth and len(path) <= len(types):
            path.append(t)
            t = types[t]
        above = depth.get(t, 0)
        for n in reversed(path):
            above += 1
            depth[n] = above
    return depth


def write_domain(domain: Domain) -> str:
    typed = bool(domain.types) or any(
        p.types != (ROOT_TYPE,) for pred in domain.predicates.values() for p in pred.params
    )
    requirements = [r for r in domain.requirements if r != ":action-costs"] or [":strips"]
    if typed and ":typing" not in requirements and ":adl" not in requirements:
        requirements.append(":typing")
    lines = [f"(define (domain {domain.name})", f"  (:requirements {' '.join(requirements)})"]
    if domain.types:
        depth = _depths(domain.types)
        parents_first = sorted(domain.types.items(), key=lambda tp: depth[tp[0]])
        lines.append("  (:types " + _typed([(t, (p,)) for t, p in parents_first], True) + ")")
    if domain.constants:
        lines.append(
            "  (:constants " + _typed([(c, (t,)) for c, t in domain.constants.items()], typed) + ")"
        )
    lines.append("  (:predicates")
    for pred in domain.predicates.values():
        params = _params(pred.params, typed)
        lines.append(f"    ({pred.name}{' ' + params if params else ''})")
    compiler = _EitherCompiler(domain)
    actions = [compiler.action(a) for a in domain.actions.values()]
    lines += [f"    ({either_predicate(types)} ?x)" for types in compiler.found]
    lines.append("  )")
    for action in actions:
        lines += [
            f"  (:action {action.name}",
            f"    :parameters ({_params(action.params, typed)})",
            f"    :precondition {formula_text(action.precondition, typed)}",
            f"    :effect {_effects_text(action.effects, typed)})",
        ]
    lines.append(")")
    return "\n".join(lines) + "\n"


def write_problem(problem: Problem, domain: Domain | None = None) -> str:
    """The problem as text; pass its ``domain`` to list the ``either-...`` facts."""
    typed = domain is None or bool(domain.types)
    lines = [
        f"(define (problem {problem.name})",
        f"  (:domain {problem.domain_name})",
        "  (:objects " + _typed([(o, (t,)) for o, t in problem.objects.items()], typed) + ")",
        "  (:init",
    ]
    lines += [f"    {fact}" for fact in problem.init]
    if domain is not None:
        everything = dict(domain.constants, **problem.objects)
        lines += [
            f"    ({either_predicate(types)} {obj})"
            for types in _either_types(domain)
            for obj, t in everything.items()
            if domain.is_subtype(t, types)
        ]
    lines += ["  )", f"  (:goal {formula_text(problem.goal, typed)})", ")"]
    return "\n".join(lines) + "\n"
