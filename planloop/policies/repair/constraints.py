"""Structural constraint extraction: what each action needs, adds and deletes.

Works on the domain's structure only. Parameters are written by position (``?1``,
``?2``, ...), never by the names the domain gives them, and nothing is inferred from
any name. Only literals are read: the conjunctive literals of a precondition and the
literal effects (conditional and quantified ones included).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...pddl import Atom, Domain
from ...pddl.model import And, ForallEffect, Formula, Literal, Not, When


@dataclass(frozen=True)
class Schema:
    """One action's structure, over positional parameters ``?1 .. ?n``."""

    name: str
    types: tuple[str, ...]  # each parameter's type(s), ``a|b`` for ``either``
    needs: tuple[Atom, ...]
    needs_false: tuple[Atom, ...]
    adds: tuple[Atom, ...]
    deletes: tuple[Atom, ...]

    def signature(self) -> str:
        return (
            "("
            + " ".join([self.name] + [f"?{i} - {t}" for i, t in enumerate(self.types, start=1)])
            + ")"
        )


@dataclass(frozen=True)
class Constraints:
    schemas: tuple[Schema, ...]
    enablers: dict[str, tuple[str, ...]]  # predicate -> the actions that add it
    never_added: tuple[str, ...]  # predicates no action adds: only the initial state has them


def extract_constraints(domain: Domain) -> Constraints:
    schemas = tuple(_schema(action) for action in domain.actions.values())
    enablers = {
        p: tuple(s.name for s in schemas if any(a.predicate == p for a in s.adds))
        for p in domain.predicates
    }
    return Constraints(schemas, enablers, tuple(p for p, by in enablers.items() if not by))


def render_constraints(constraints: Constraints, deep: bool = True) -> str:
    """The constraints as prompt text; ``deep=False`` gives only each action's
    parameters and their types (the shallow ablation)."""
    lines = ["Actions (parameters by position, with their types):"]
    lines += [f"- {schema.signature()}" for schema in constraints.schemas]
    if not deep:
        return "\n".join(lines)
    lines.append("\nWhat each action requires before it, adds and deletes:")
    for schema in constraints.schemas:
        parts = [f"requires {_atoms(schema.needs)}"]
        if schema.needs_false:
            parts.append(f"requires false {_atoms(schema.needs_false)}")
        parts += [f"adds {_atoms(schema.adds)}", f"deletes {_atoms(schema.deletes)}"]
        lines.append(f"- {schema.name}: " + "; ".join(parts))
    lines.append("\nWhich actions add what another action requires:")
    for schema in constraints.schemas:
        for atom in schema.needs:
            by = constraints.enablers.get(atom.predicate, ())
            lines.append(
                f"- {schema.name} requires {atom}: "
                f"{'added by ' + ', '.join(by) if by else 'no action adds it'}"
            )
    if constraints.never_added:
        lines.append(
            "\nNo action adds these; they hold only if the initial state has them: "
            + ", ".join(constraints.never_added)
        )
    return "\n".join(lines)


def _schema(action) -> Schema:
    position = {p.name: f"?{i}" for i, p in enumerate(action.params, start=1)}

    def positional(atom: Atom) -> Atom:
        return Atom(atom.predicate, tuple(position.get(a, a) for a in atom.args))

    needs, needs_false = _literals(action.precondition)
    adds: list[Atom] = []
    deletes: list[Atom] = []
    for literal in _effect_literals(action.effects):
        (deletes if literal.negated else adds).append(positional(literal.atom))
    return Schema(
        action.name,
        tuple("|".join(p.types) for p in action.params),
        tuple(map(positional, needs)),
        tuple(map(positional, needs_false)),
        tuple(adds),
        tuple(deletes),
    )


def _literals(formula: Formula) -> tuple[list[Atom], list[Atom]]:
    """The positive and negative atoms a precondition conjoins."""
    if isinstance(formula, Atom):
        return [formula], []
    if isinstance(formula, Not) and isinstance(formula.arg, Atom):
        return [], [formula.arg]
    positive, negative = [], []
    if isinstance(formula, And):
        for part in formula.args:
            more_positive, more_negative = _literals(part)
            positive += more_positive
            negative += more_negative
    return positive, negative


def _effect_literals(effects) -> list[Literal]:
    found = []
    for effect in effects:
        if isinstance(effect, Literal):
            found.append(effect)
        elif isinstance(effect, (When, ForallEffect)):
            found += _effect_literals(effect.effects)
    return found


def _atoms(atoms: tuple[Atom, ...]) -> str:
    return " ".join(map(str, atoms)) or "nothing"
