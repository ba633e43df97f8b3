"""Chosen hidden worlds of a contingent problem, as the suites ship them.

A world is written ``(:hidden atom ...)``: the atoms true among those ``:init`` leaves
uncertain. K-replanner's problems hold such sections, and the suites ship
``hidden*.pddl`` files of them (``(define (problem NAME) (:hidden ...) (:hidden ...))``,
one world a section) to evaluate planners on the same worlds. :func:`read_hidden` reads
them, :func:`hidden_world` turns one into the world (a bitset of the grounded task's
facts) that a play starts from, or says which constraint of ``:init`` it breaks.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from .diagnostics import Diagnostic, PDDLError
from .formula_reader import FormulaReader
from .model import CLAUSE_BOUNDS, Atom, Domain, InitClause, Problem
from .problem_reader import hidden_worlds
from .reading import Reader
from .sexpr import SList, extract_define, line_of, read_form
from .source import DEFAULT_LIMITS, Limits, read_source

if TYPE_CHECKING:
    from .contingent import ContingentTask

_DEFINE = re.compile(r"\(\s*define\b", re.IGNORECASE)
_ITEM = re.compile(r"\(|;[^\n]*|[^\s;(]+")  # a form's start, a comment or a stray word


def read_hidden(
    source: str | os.PathLike | Sequence[str],
    domain: Domain,
    problem: Problem,
    limits: Limits = DEFAULT_LIMITS,
) -> tuple[tuple[Atom, ...], ...]:
    """The worlds of ``source``, read against ``problem``'s objects: a path or text of
    ``(:hidden ...)`` sections, bare or in a ``(define (problem ...) ...)`` (whose other
    sections are left alone), or a list of atoms such as ``["(opened p2-3)"]`` (one
    world). A malformed section or an atom the problem cannot name is a
    :class:`~.diagnostics.PDDLError` with line and column."""
    if not isinstance(source, (str, os.PathLike)):
        source = "(:hidden\n" + "\n".join(source) + ")"
    text = read_source(source, "problem", limits)
    r = Reader(text, "problem", contingent=True)
    if _DEFINE.search(text):
        form, _ = extract_define(text, "problem", limits)
        sections = [s for s in form[2:] if isinstance(s, SList) and s and s[0] == ":hidden"]
    else:
        sections = _forms(text, limits)
    for section in sections:
        if not section or section[0] != ":hidden":
            r.error("expected '(:hidden atom ...)'", section)
    if not sections and not r.errors:
        r.error("no '(:hidden ...)' section")
    everything = dict(domain.constants)
    everything.update(problem.objects)
    fr = FormulaReader(r, (domain.types, domain.predicates, domain.functions), everything)
    worlds = hidden_worlds(r, fr, [s for s in sections if s and s[0] == ":hidden"])
    r.raise_if_errors()
    return tuple(worlds)


def _forms(text: str, limits: Limits) -> list[SList]:
    """The top-level parenthesized forms of ``text`` (comments skipped)."""
    forms: list[SList] = []
    pos = 0
    while True:
        found = _ITEM.search(text, pos)
        if found is None:
            return forms
        if found.group() != "(":
            if not found.group().startswith(";"):
                line = 1 + text.count("\n", 0, found.start())
                col = found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1
                raise PDDLError(
                    [
                        Diagnostic(
                            "problem",
                            f"expected '(:hidden atom ...)', found {found.group()!r}",
                            line,
                            col,
                            line_of(text, line),
                        )
                    ]
                )
            pos = found.end()
            continue
        form, pos = read_form(text, found.start(), "problem", limits)
        forms.append(form)


def hidden_world(task: ContingentTask, atoms: Iterable[Atom]) -> int:
    """The world in which ``atoms`` are the true ones among the uncertain atoms of
    ``task``'s ``:init`` (the others false, but for the facts the domain defines by others,
    which follow from them), the facts ``:init`` lists being true. A ValueError names an
    atom false in every world, or the constraint of ``:init`` the world breaks."""
    problem = task.problem
    uncertain = set(problem.unknown) | {lit.atom for c in problem.clauses for lit in c.literals}
    listed = set(problem.init)
    chosen = set(atoms)
    for atom in chosen - uncertain - listed:
        raise ValueError(
            f"the hidden world makes {atom} true, but it is false in every world of the "
            f"initial belief (':init' neither lists it nor leaves it unknown)"
        )
    derived = {d.atom.predicate for d in task.domain.derived}
    value = {
        a: a in chosen or a in listed
        for a in uncertain
        if a.predicate not in derived or a in chosen
    }
    if derived:
        _propagate(problem.clauses, value)
    for clause in problem.clauses:
        true = sum(value.get(lit.atom, False) != lit.negated for lit in clause.literals)
        most, least = CLAUSE_BOUNDS[clause.kind]
        if (least and true == 0) or (most and true > 1):
            raise ValueError(
                f"the hidden world is not in the initial belief: it breaks "
                f"{_clause_text(clause)} of ':init'"
            )
    world = 0
    for atom in listed | {a for a, v in value.items() if v}:
        world |= 1 << task.task.fact_id(atom)
    return world


def _propagate(clauses: tuple[InitClause, ...], value: dict[Atom, bool]) -> None:
    """Set, until none is left, the one unset atom of a clause no literal of which holds
    yet to make it hold; the atoms left unset are false."""
    changed = True
    while changed:
        changed = False
        for clause in clauses:
            if not CLAUSE_BOUNDS[clause.kind][1]:
                continue  # an at-most-one never needs an atom true
            unset = [lit for lit in clause.literals if lit.atom not in value]
            if len(unset) == 1 and not any(
                value.get(lit.atom) == (not lit.negated) for lit in clause.literals
            ):
                value[unset[0].atom] = not unset[0].negated
                changed = True


def _clause_text(clause: InitClause) -> str:
    literals = " ".join(
        f"(not {lit.atom})" if lit.negated else str(lit.atom) for lit in clause.literals
    )
    return f"({clause.kind} {literals})"
