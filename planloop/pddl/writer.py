"""The model back to PDDL text that Fast Downward and other readers accept.

Action costs are not kept by the model, so the written domain is the unit-cost
version of the one read.
"""

from __future__ import annotations

from .model import (
    ROOT_TYPE, And, Atom, Domain, Equals, Exists, Forall, ForallEffect, Imply, Literal, Not, Or,
    Param, Problem, When,
)


def _type_text(types: tuple[str, ...]) -> str:
    return types[0] if len(types) == 1 else "(either " + " ".join(types) + ")"


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
    word = "exists" if isinstance(f, Exists) else "forall"
    return f"({word} ({_params(f.params, typed)}) {formula_text(f.body, typed)})"


def _effect_text(e, typed: bool) -> str:
    if isinstance(e, Literal):
        return f"(not {e.atom})" if e.negated else str(e.atom)
    if isinstance(e, When):
        return f"(when {formula_text(e.condition, typed)} {_effects_text(e.effects, typed)})"
    assert isinstance(e, ForallEffect)
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
        lines.append("  (:types " + _typed([(t, (p,)) for t, p in domain.types.items()], True)
                     + ")")
    if domain.constants:
        lines.append("  (:constants " + _typed([(c, (t,)) for c, t in domain.constants.items()],
                                               typed) + ")")
    lines.append("  (:predicates")
    for pred in domain.predicates.values():
        params = _params(pred.params, typed)
        lines.append(f"    ({pred.name}{' ' + params if params else ''})")
    lines.append("  )")
    for action in domain.actions.values():
        lines += [f"  (:action {action.name}",
                  f"    :parameters ({_params(action.params, typed)})",
                  f"    :precondition {formula_text(action.precondition, typed)}",
                  f"    :effect {_effects_text(action.effects, typed)})"]
    lines.append(")")
    return "\n".join(lines) + "\n"


def write_problem(problem: Problem, domain: Domain | None = None) -> str:
    typed = domain is None or bool(domain.types)
    lines = [f"(define (problem {problem.name})", f"  (:domain {problem.domain_name})",
             "  (:objects " + _typed([(o, (t,)) for o, t in problem.objects.items()], typed)
             + ")", "  (:init"]
    lines += [f"    {fact}" for fact in problem.init]
    lines += ["  )", f"  (:goal {formula_text(problem.goal, typed)})", ")"]
    return "\n".join(lines) + "\n"
