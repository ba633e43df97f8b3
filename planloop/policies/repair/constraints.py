"""Structural constraint extraction: what each action needs, adds and deletes, and
the deep constraints over them.

Works on the structure only. Parameters are written by position (``?1``, ``?2``, ...),
never by the names the domain gives them, and nothing is inferred from any name. Only
literals are read: the conjunctive literals of a precondition and the literal effects
(conditional and quantified ones included). The deep constraints (the paper's, which
its w/o Deep Constraints ablation removes):

- dependency chains: for each fact an action needs, the actions that add it, their
  arguments bound to the needing action's where the fact shares them;
- mutual-exclusion hints: what an action deletes that other actions need (after it,
  they wait for an action that adds it again), and the pairs of facts no reachable
  state has together (proved by :func:`planloop.pddl.invariants.mutex`);
- landmark orderings: the facts every plan makes true
  (:func:`planloop.pddl.landmarks.fact_landmarks`), by the first level of the relaxed
  planning graph at which each can hold.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from ...pddl import Atom, Task
from ...pddl.invariants import mutex
from ...pddl.landmarks import fact_landmarks, relaxed_levels
from ...pddl.model import And, ForallEffect, Formula, Literal, Not, When

MAX_MUTEX_FACTS = 80  # fact pairs screened for mutexes: at most 80 facts (3,160 pairs)
MAX_MUTEXES = 12  # proved pairs listed


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
    mutexes: tuple[tuple[Atom, Atom], ...] = ()  # facts no reachable state has together
    landmarks: tuple[tuple[int, tuple[Atom, ...]], ...] = ()  # (relaxed level, facts)

    def counts(self) -> dict[str, int]:
        """How many deep constraints of each kind (for the signal log)."""
        return {
            "dependency_chains": sum(len(s.needs) for s in self.schemas),
            "mutex_hints": len(_interference(self.schemas)) + len(self.mutexes),
            "landmarks": sum(len(facts) for _, facts in self.landmarks),
        }


def extract_constraints(task: Task) -> Constraints:
    """The task's constraints: its domain's schemas and the problem's mutexes and
    landmarks."""
    domain = task.domain
    schemas = tuple(_schema(action) for action in domain.actions.values())
    enablers = {
        p: tuple(s.name for s in schemas if any(a.predicate == p for a in s.adds))
        for p in domain.predicates
    }
    return Constraints(
        schemas,
        enablers,
        tuple(p for p, by in enablers.items() if not by),
        _mutexes(task),
        _landmark_levels(task),
    )


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
    lines.append("\nDependency chains (the actions that add each fact an action requires):")
    for schema in constraints.schemas:
        for atom in schema.needs:
            by = _achievers(constraints.schemas, atom)
            lines.append(
                f"- {schema.name} requires {atom}: "
                f"{'after ' + ' or '.join(by) if by else 'no action adds it'}"
            )
    if constraints.never_added:
        lines.append(
            "\nNo action adds these; they hold only if the initial state has them: "
            + ", ".join(constraints.never_added)
        )
    lines.append("\nMutual exclusions (an action deletes what others require):")
    lines += [
        f"- {name} deletes {atom}: then {', '.join(needing)} cannot apply until an "
        "action adds it again"
        for name, atom, needing in _interference(constraints.schemas)
    ] or ["- none"]
    if constraints.mutexes:
        lines.append(
            "Facts that never hold together: "
            + "; ".join(f"{a} and {b}" for a, b in constraints.mutexes)
        )
    if constraints.landmarks:
        lines.append("\nLandmarks (facts every plan makes true), in the order they can first hold:")
        lines += [
            f"- level {level}: {' '.join(map(str, facts))}"
            for level, facts in constraints.landmarks
        ]
    return "\n".join(lines)


def _achievers(schemas: tuple[Schema, ...], needed: Atom) -> list[str]:
    """The actions that add ``needed`` (an action's positional atom), written with that
    action's arguments where the added atom binds them (``?*``: any)."""
    return list(
        dict.fromkeys(
            _bound(schema, added, needed)
            for schema in schemas
            for added in schema.adds
            if _same_shape(added, needed)
        )
    )


def _interference(schemas: tuple[Schema, ...]) -> list[tuple[str, Atom, list[str]]]:
    """(action, an atom it deletes, the actions requiring that atom, bound likewise)."""
    found = []
    for schema in schemas:
        for deleted in schema.deletes:
            needing = list(
                dict.fromkeys(
                    _bound(other, needed, deleted)
                    for other in schemas
                    for needed in other.needs
                    if _same_shape(needed, deleted)
                )
            )
            if needing:
                found.append((schema.name, deleted, needing))
    return found


def _same_shape(a: Atom, b: Atom) -> bool:
    return a.predicate == b.predicate and len(a.args) == len(b.args)


def _bound(schema: Schema, own: Atom, other: Atom) -> str:
    """``schema`` as an action whose atom ``own`` is ``other``: its parameters that
    ``own`` names take ``other``'s terms, the rest ``?*``."""
    bound = dict(zip(own.args, other.args, strict=True))
    args = [bound.get(f"?{i}", "?*") for i in range(1, len(schema.types) + 1)]
    return "(" + " ".join([schema.name, *args]) + ")"


def _mutexes(task: Task) -> tuple[tuple[Atom, Atom], ...]:
    """Pairs of the task's facts proved never true together (none when it has more
    than :data:`MAX_MUTEX_FACTS` facts), at most :data:`MAX_MUTEXES`."""
    facts = list(task.facts)
    if len(facts) > MAX_MUTEX_FACTS:
        return ()
    init, found = frozenset(task.problem.init), []
    for a, b in combinations(facts, 2):
        if mutex(task.domain, init, (True, a), (True, b)):
            found.append((a, b))
            if len(found) == MAX_MUTEXES:
                break
    return tuple(found)


def _landmark_levels(task: Task) -> tuple[tuple[int, tuple[Atom, ...]], ...]:
    """The landmarks not in the initial state, grouped by their first relaxed level."""
    level, _ = relaxed_levels(task, task.init)
    grouped: dict[int, list[Atom]] = {}
    for fact in fact_landmarks(task):
        if not task.init >> fact & 1:
            grouped.setdefault(level[fact], []).append(task.facts[fact])
    return tuple((depth, tuple(facts)) for depth, facts in grouped.items())


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
