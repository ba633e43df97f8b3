"""The model back to PDDL text that Fast Downward and other readers accept.

Two constructs the model allows but planners refuse are compiled away: a variable
typed ``(either a b)`` becomes an ``object`` guarded by a static predicate
``either-a-b`` (the problem lists its facts), and a ``when`` nested in a ``when``
(or holding a ``forall``) is flattened. Action costs are not kept by the model, so
the written domain is the unit-cost version of the one read.
"""

from __future__ import annotations

from .model import (
    ROOT_TYPE, And, Atom, Domain, Equals, Exists, Forall, ForallEffect, Imply, Literal, Not, Or,
    Param, Problem, When,
)


def _type_text(types: tuple[str, ...]) -> str:
    return types[0] if len(types) == 1 else ROOT_TYPE


def either_predicate(types: tuple[str, ...]) -> str:
    return "either-" + "-".join(types)


def _guards(params: tuple[Param, ...]) -> list[Atom]:
    """Membership facts standing in for ``(either ...)`` parameter types."""
    return [Atom(either_predicate(p.types), (p.name,)) for p in params if len(p.types) > 1]


def _either_types(domain: Domain) -> list[tuple[str, ...]]:
    found: dict[tuple[str, ...], None] = {}

    def visit(node):
        for param in getattr(node, "params", ()):
            if len(param.types) > 1:
                found[param.types] = None
        for child in ("precondition", "body", "condition", "consequence", "arg"):
            if hasattr(node, child):
                visit(getattr(node, child))
        for child in getattr(node, "args", ()) if not isinstance(node, Atom) else ():
            visit(child)
        for child in getattr(node, "effects", ()):
            visit(child)

    for action in domain.actions.values():
        visit(action)
    return list(found)


def _typed(pairs, typed: bool) -> str:
    """``[(a, (t,)), (b, (t,))]`` -> ``a b - t``; grouped by type, in order."""
    if not typed:
        return " ".join(name for name, _ in pairs)
    parts, group, current = [], [], None
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
    guards = _guards(f.params)
    body = f.body
    if guards and isinstance(f, Exists):
        body = And(tuple(guards) + (body,))
    elif guards:
        body = Imply(And(tuple(guards)), body)
    word = "exists" if isinstance(f, Exists) else "forall"
    return f"({word} ({_params(f.params, typed)}) {formula_text(body, typed)})"


def _flatten(effects, condition=None) -> list:
    """Effects with no ``when`` inside a ``when``: conditions are conjoined, and a
    ``forall`` under a condition takes the condition inside."""
    out, literals = [], []
    for e in effects:
        if isinstance(e, Literal):
            literals.append(e)
        elif isinstance(e, When):
            inner = e.condition if condition is None else And((condition, e.condition))
            out.extend(_flatten(e.effects, inner))
        else:
            guards = _guards(e.params)
            inner = condition
            if guards:
                inner = And(tuple(guards) + ((condition,) if condition is not None else ()))
            out.append(ForallEffect(e.params, tuple(_flatten(e.effects, inner))))
    if literals:
        out[:0] = literals if condition is None else [When(condition, tuple(literals))]
    return out


def _effect_text(e, typed: bool) -> str:
    if isinstance(e, Literal):
        return f"(not {e.atom})" if e.negated else str(e.atom)
    if isinstance(e, When):
        return f"(when {formula_text(e.condition, typed)} {_effects_text(e.effects, typed)})"
    return f"(forall ({_params(e.params, typed)}) {_effects_text(e.effects, typed)})"


def _effects_text(effects, typed: bool) -> str:
    return "(and " + " ".join(_effect_text(e, typed) for e in effects) + ")"


def write_domain(domain: Domain) -> str:
    typed = bool(domain.types) or any(
        p.types != (ROOT_TYPE,) for pred in domain.predicates.values() for p in pred.params)
    requirements = [r for r in domain.requirements if r != ":action-costs"] or [":strips"]
    if typed and ":typing" not in requirements and ":adl" not in requirements:
        requirements.append(":typing")
    lines = [f"(define (domain {domain.name})", f"  (:requirements {' '.join(requirements)})"]
    if domain.types:
        parents_first = sorted(domain.types.items(), key=lambda tp: len(domain.ancestors(tp[0])))
        lines.append("  (:types " + _typed([(t, (p,)) for t, p in parents_first], True) + ")")
    if domain.constants:
        lines.append("  (:constants " + _typed([(c, (t,)) for c, t in domain.constants.items()],
                                               typed) + ")")
    lines.append("  (:predicates")
    for pred in domain.predicates.values():
        params = _params(pred.params, typed)
        lines.append(f"    ({pred.name}{' ' + params if params else ''})")
    lines += [f"    ({either_predicate(types)} ?x)" for types in _either_types(domain)]
    lines.append("  )")
    for action in domain.actions.values():
        guards = _guards(action.params)
        precondition = And(tuple(guards) + (action.precondition,)) if guards \
            else action.precondition
        lines += [f"  (:action {action.name}",
                  f"    :parameters ({_params(action.params, typed)})",
                  f"    :precondition {formula_text(precondition, typed)}",
                  f"    :effect {_effects_text(_flatten(action.effects), typed)})"]
    lines.append(")")
    return "\n".join(lines) + "\n"


def write_problem(problem: Problem, domain: Domain | None = None) -> str:
    """The problem as text; pass its ``domain`` to list the ``either-...`` facts."""
    typed = domain is None or bool(domain.types)
    lines = [f"(define (problem {problem.name})", f"  (:domain {problem.domain_name})",
             "  (:objects " + _typed([(o, (t,)) for o, t in problem.objects.items()], typed)
             + ")", "  (:init"]
    lines += [f"    {fact}" for fact in problem.init]
    if domain is not None:
        everything = dict(domain.constants, **problem.objects)
        lines += [f"    ({either_predicate(types)} {obj})" for types in _either_types(domain)
                  for obj, t in everything.items() if domain.is_subtype(t, types)]
    lines += ["  )", f"  (:goal {formula_text(problem.goal, typed)})", ")"]
    return "\n".join(lines) + "\n"
