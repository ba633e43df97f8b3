"""A problem's text read against its domain into a :class:`~.model.Problem`: its
objects, ``:init`` (with the contingent dialect's unknown facts and clauses, see
:mod:`.dialects`), goal and hidden worlds; :func:`.reader.parse_problem` is the way in."""

from __future__ import annotations

import os

from . import dialects
from .collection import collection_paused
from .diagnostics import quote
from .formula_reader import FormulaReader
from .model import And, Atom, Domain, InitClause, Literal, Problem
from .reading import Reader, count_names, declare, entries, has_objects, read_sections
from .sexpr import SList, Sym
from .source import Limits

_CONNECTIVES = dialects.CONNECTIVES


@collection_paused()
def read_problem(
    source: str | os.PathLike, domain: Domain, limits: Limits, strict: bool, contingent: bool
) -> Problem:
    """The problem of ``domain`` in ``source`` (a path or PDDL text), read afresh
    (:func:`.reader.parse_problem` keeps it); a PDDLError holds every error found."""
    r, form, name, found = read_sections(source, "problem", limits, strict, contingent)
    for key, parts in found.items():
        if key not in (
            ":domain",
            ":objects",
            ":init",
            ":goal",
            ":metric",
            ":requirements",
        ) and not (contingent and key in (":hidden", ":constants")):
            r.error(f"section {quote(key)} is not supported in a problem", parts[0])
    domain_name = _domain_name(r, found.get(":domain"), domain, form)
    body = entries(found, ":objects")
    if ":constants" in found and r.tolerate(
        "':constants' in a problem", "':objects'", found[":constants"][0]
    ):
        body += entries(found, ":constants")  # K-replanner's problems declare them so
    limits.check("max_objects", count_names(body), "problem", "objects")
    objects = declare(
        r,
        r.declarations(body, variables=False, known_types=domain.types),
        domain.types,
        "object",
        taken=domain.constants,
    )
    for constant in domain.external_constants:
        if constant not in objects:
            r.error(
                f"the domain's actions use {quote(constant)}, which is declared neither as a "
                f"constant of the domain nor as an object of the problem",
                form,
            )
    init_nodes = entries(found, ":init")
    if (
        contingent
        and len(init_nodes) == 1
        and isinstance(init_nodes[0], SList)
        and init_nodes[0]
        and init_nodes[0][0] == "and"
    ):
        init_nodes = init_nodes[0][1:]
    limits.check("max_init_facts", len(init_nodes), "problem", "facts in ':init'")
    if ":init" not in found:
        r.error("missing ':init' section", form)
    goal_node = _goal_node(r, found.get(":goal"), form)
    if goal_node is not None:
        limits.check("max_goal_size", _count_lists(goal_node), "problem", "conditions in ':goal'")
    everything = dict(domain.constants)
    everything.update(objects)
    for action in domain.unread_actions:  # the domain's errors, where the domain has them
        if all(has_objects(domain.types, everything, t) for t in action.param_types):
            r.errors.extend(action.errors)
    fr = FormulaReader(r, (domain.types, domain.predicates, domain.functions), everything)
    unknown: dict[Atom, SList] = {}
    clauses: list[InitClause] = []
    if contingent:
        init_nodes = _read_uncertain(r, fr, init_nodes, unknown, clauses)
    init, denied = _read_init(r, fr, init_nodes, unknown, clauses)
    if contingent and (domain.variables or domain.derived):
        expansion = dialects.Expansion(domain, everything)
        limits.check(
            "max_expansion",
            expansion.count(),
            "problem",
            "bindings of the domain's ':variable' values and defined facts",
        )
        _read_variables_init(expansion, init, denied, unknown, clauses)
    goal = fr.formula(goal_node, {}) if goal_node is not None else And(())
    hidden = hidden_worlds(r, fr, found.get(":hidden", []))
    r.raise_if_errors()
    return Problem(
        str(name),
        str(domain_name),
        objects,
        tuple(init),
        goal,
        tuple(r.warnings),
        tuple(unknown),
        tuple(clauses),
        tuple(hidden),
    )


def _read_variables_init(expansion: dialects.Expansion, init, denied, unknown, clauses) -> None:
    """Add the initial constraints of the domain's variables and defined facts over the
    problem's objects to ``unknown`` and ``clauses`` (see :mod:`.dialects`)."""
    listed = set(init)
    more, free = dialects.variable_init(expansion, listed, set(denied))
    clauses += more
    unknown.update((atom, SList()) for atom in free)
    uncertain = set(unknown) | {lit.atom for c in clauses for lit in c.literals}
    more, true = dialects.derived_init(expansion, listed, uncertain)
    clauses += more
    init += [atom for atom in true if atom not in listed]


def hidden_worlds(r: Reader, fr: FormulaReader, sections) -> list[tuple[Atom, ...]]:
    """The worlds of ``(:hidden atom ...)`` sections: each lists the atoms true in one
    world (a ``(not atom)`` says what is false anyway)."""
    worlds = []
    for section in sections:
        atoms = []
        for node in section[1:]:
            negated = isinstance(node, SList) and len(node) == 2 and node[0] == "not"
            inner = node[1] if negated else node
            if not isinstance(inner, SList) or not inner or inner[0] in _CONNECTIVES:
                r.error("':hidden' lists atoms and '(not atom)'", node)
                continue
            atom = fr.atom(inner, {})
            if atom is not None and not negated:
                atoms.append(atom)
        worlds.append(tuple(dict.fromkeys(atoms)))
    return worlds


def _domain_name(r: Reader, sections, domain: Domain, form) -> str | None:
    if not sections:
        r.error("missing '(:domain NAME)'", form)
        return None
    section = sections[0]
    if len(section) != 2 or not isinstance(section[1], Sym):
        r.error("expected '(:domain NAME)'", section)
        return None
    if section[1] != domain.name:
        message = (
            f"the problem is for domain {quote(section[1])} but the domain is {quote(domain.name)}"
        )
        if not r.contingent:
            r.error(message, section[1])
        else:  # contingent planners (CLG, CPOR, unified-planning) ignore the name
            r.tolerate(message, f"a problem of {quote(domain.name)}", section[1])
    return section[1]


def _goal_node(r: Reader, sections, form):
    if not sections:
        r.error("missing ':goal' section", form)
        return None
    section = sections[0]
    if len(section) != 2:
        r.error("':goal' takes exactly one condition", section)
    return section[1] if len(section) > 1 else SList()


def _read_uncertain(
    r: Reader,
    fr: FormulaReader,
    nodes,
    unknown: dict[Atom, SList],
    clauses: list[InitClause],
) -> list:
    """Read the ``unknown``, ``oneof`` and ``or`` entries of a contingent ``:init``, and
    K-replanner's invariants (see :mod:`.dialects`), into ``unknown`` (atom -> its first
    entry) and ``clauses``; the other entries, for :func:`_read_init`."""
    rest = []
    invariant: dict[Atom, bool] = {}  # an atom of an invariant -> whether one names it positive
    for node in nodes:
        head = node[0] if isinstance(node, SList) and node else None
        if head == "unknown":
            if (
                len(node) != 2
                or not isinstance(node[1], SList)
                or not node[1]
                or node[1][0] in _CONNECTIVES
            ):
                r.error("'unknown' takes exactly one atom", node)
                continue
            atom = fr.atom(node[1], {})
            if atom is not None:
                unknown.setdefault(atom, node)
        elif head in ("oneof", "or"):
            literals = [_init_literal(r, fr, part) for part in node[1:]]
            if not literals:
                r.error(f"{quote(head)} takes at least one literal", node)
            elif None not in literals:
                read = [literal for literal in literals if literal is not None]  # all of them
                clauses.append(InitClause(str(head), tuple(read)))
        elif head in dialects.INVARIANTS:
            literals = [_init_literal(r, fr, part, head) for part in node[1:]]
            if not literals:
                r.error(f"{quote(head)} takes at least one literal", node)
            elif None not in literals:
                read = [literal for literal in literals if literal is not None]  # all of them
                clauses.append(InitClause(dialects.INVARIANTS[head], tuple(read)))
                for lit in read:
                    invariant[lit.atom] = invariant.get(lit.atom, False) or not lit.negated
        else:
            rest.append(node)
    named = set(unknown) | {lit.atom for c in clauses for lit in c.literals if not lit.negated}
    named |= {  # and the facts listed
        Atom(str(n[0]), tuple(map(str, n[1:])))
        for n in rest
        if isinstance(n, SList) and n and all(isinstance(t, Sym) for t in n)
    }
    clauses += [
        InitClause("or", (Literal(atom, True),))
        for atom, positive in invariant.items()
        if not positive and atom not in named
    ]
    return rest


def _init_literal(r: Reader, fr: FormulaReader, node, head: str = "") -> Literal | None:
    """An atom or ``(not atom)`` of a ``oneof``, an ``or`` or an invariant ``head`` in
    ``:init``."""
    negated = isinstance(node, SList) and len(node) == 2 and node[0] == "not"
    inner = node[1] if negated else node
    if not isinstance(inner, SList) or not inner or inner[0] in _CONNECTIVES:
        what = f"{quote(head)} in ':init' takes" if head else "'oneof' and 'or' in ':init' take"
        r.error(f"{what} atoms and '(not atom)'", node)
        return None
    atom = fr.atom(inner, {})
    return None if atom is None else Literal(atom, negated)


def _read_init(
    r: Reader, fr: FormulaReader, nodes, unknown: dict[Atom, SList], clauses: list[InitClause]
) -> tuple[list[Atom], list[Atom]]:
    """The facts of ``:init`` and the atoms it denies. A negative literal is read as
    nothing (a warning; an error when strict), but one denying an atom of ``clauses`` makes
    it false (a clause of its own); one denying a fact the section lists, or one of
    ``unknown`` (atom -> its ``(unknown ...)``), is an error in every reading, as Fast
    Downward refuses it."""
    listed: dict[Atom, SList] = {}
    denied: list[tuple[Atom, SList]] = []
    for node in nodes:
        if not isinstance(node, SList) or not node:
            r.error("expected a fact '(predicate object ...)'", node)
            continue
        if node[0] == "=" and len(node) == 3 and isinstance(node[1], SList):
            continue  # a numeric fluent's value, such as (= (total-cost) 0)
        if node[0] == "not" and len(node) == 2 and isinstance(node[1], SList):
            atom = fr.atom(node[1], {})
            if atom is not None:
                denied.append((atom, node))
            continue
        if node[0] in ("not", "and", "or", "forall", "exists", "="):
            r.error(f"':init' holds only facts, found {quote(node[0])}", node)
            continue
        atom = fr.atom(node, {})
        if atom is not None:
            listed.setdefault(atom, node)
    constrained = {lit.atom for c in clauses for lit in c.literals}
    for atom, node in denied:
        if atom in listed:
            _contradiction(r, atom, "true", listed[atom], node)
        elif atom in unknown:
            _contradiction(r, atom, "unknown", unknown[atom], node)
        elif atom in constrained:
            clauses.append(InitClause("or", (Literal(atom, True),)))
        else:
            r.tolerate(
                "a negative literal in ':init'",
                "nothing: what ':init' does not list is false",
                node,
            )
    return list(listed), [atom for atom, _ in denied]


def _contradiction(r: Reader, atom: Atom, how: str, said: SList, denial: SList) -> None:
    """The error for ``atom``, ``how`` (true or unknown) at ``said`` and false at
    ``denial``, placed at the later of the two and naming the other's place."""
    first, second = sorted((said, denial), key=lambda n: (n.line, n.col))
    r.error(
        f"{quote(str(atom))} is both {how} and false in ':init' (also at line {first.line}, "
        f"col {first.col})",
        second,
    )


def _count_lists(node) -> int:
    """How many parenthesized lists ``node`` is and holds, at any depth."""
    count, todo = 0, [node]
    while todo:
        item = todo.pop()
        if isinstance(item, SList):
            count += 1
            todo.extend(item)
    return count
