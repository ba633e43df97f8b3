"""PDDL text -> the model, with a diagnostic for every mistake a writer can make.

The reader collects every error it can find in one pass and raises one
:class:`PDDLError` carrying them all; warnings ride on the returned model.

Two readings. The default, planner-compatible one accepts what Fast Downward's
translator or the FF parser accepts when its meaning is unambiguous, gives it that
meaning and records a warning with line and column for each such form (a type listed
among its own subtypes, an undeclared type, a repeated section or declaration, a
negative literal in ``:init``, a requirement it does not support but nothing uses).
An error that follows from such a reading (an object of an undeclared type read as
``object``, then a type mismatch; a name declared twice, narrowed) carries its warning
as its ``cause``. ``strict=True`` refuses each of them as an error, for benchmark
authors. Both refuse what both planners refuse, and what Fast Downward refuses as a
contradiction: a fact both listed (or unknown) and denied in ``:init``.

``contingent=True`` reads the contingent dialect of CLG, SDR and CPOR as well: the
``:contingent`` requirement, sensing actions (``:observe`` atoms or an ``and`` of atoms,
no effect), and an ``:init`` (maybe wrapped in one ``and``) with ``(unknown a)``,
``(oneof l ...)`` and ``(or l ...)`` over literals (``(not a)`` of an atom they name makes
it false); a problem naming another domain is a warning there, as those planners read
it. So are a problem's ``(:hidden atom ...)`` worlds, and the dialects of K-replanner
and cp2fsc, compiled to this one (see :mod:`.dialects`).

This module is the way in: :func:`parse_domain`, :func:`parse_problem` and
:func:`parse`, each reading kept by its text (:data:`DOMAINS`, :data:`PROBLEMS`). The
reading itself is :mod:`.domain_reader`'s and :mod:`.problem_reader`'s, over
:mod:`.formula_reader` (conditions and effects) and :mod:`.reading` (what every reading
shares: diagnostics, tolerated forms, typed lists, sections).
"""

from __future__ import annotations

import os

from .diagnostics import PDDLError
from .domain_reader import read_domain
from .memo import Memo, text_key
from .model import Domain, Problem
from .problem_reader import read_problem
from .source import DEFAULT_LIMITS, Limits, read_source, source_path

DOMAINS: Memo[Domain] = Memo()
PROBLEMS: Memo[tuple[Domain, Problem]] = Memo()


def _as_read(
    source: str | os.PathLike, stage: str, limits: Limits
) -> tuple[str | os.PathLike, str | None]:
    """``source`` and its memo key: for a file, its text (read once, within ``limits``)
    and that text's hash; for text, itself and its hash; else ``source`` and None (the
    reading then says what is wrong)."""
    if source_path(source) is None:
        return source, text_key(source)
    try:
        text = read_source(source, stage, limits)
    except PDDLError:
        return source, None
    key = text_key(text)
    return (source, None) if key is None else (text, key)


def parse_domain(
    source: str | os.PathLike,
    limits: Limits = DEFAULT_LIMITS,
    strict: bool = False,
    contingent: bool = False,
) -> Domain:
    """Read a domain from a path or from PDDL text; ``strict`` refuses what planners
    tolerate, ``contingent`` reads sensing actions (see the module's docstring). The same
    text read the same way again is the same Domain (:data:`DOMAINS`, an LRU), a file's
    by its contents."""
    source, key = _as_read(source, "domain", limits)
    if key is None:
        return read_domain(source, limits, strict, contingent)
    return DOMAINS.get(
        (key, limits, strict, contingent), lambda: read_domain(source, limits, strict, contingent)
    )


def parse_problem(
    source: str | os.PathLike,
    domain: Domain,
    limits: Limits = DEFAULT_LIMITS,
    strict: bool = False,
    contingent: bool = False,
) -> Problem:
    """Read a problem of ``domain`` from a path or from PDDL text; ``strict`` refuses what
    planners tolerate, ``contingent`` reads unknown facts and the constraints on them (see
    the module's docstring). The same text read against the same Domain object the same
    way again is the same Problem (:data:`PROBLEMS`, an LRU), a file's by its contents."""
    source, key = _as_read(source, "problem", limits)
    if key is None:
        return read_problem(source, domain, limits, strict, contingent)
    kept, problem = PROBLEMS.get(
        (key, id(domain), limits, strict, contingent),
        lambda: (domain, read_problem(source, domain, limits, strict, contingent)),
    )
    if kept is not domain:  # another domain since freed, at the same address
        return read_problem(source, domain, limits, strict, contingent)
    return problem


def parse(
    domain: str | os.PathLike,
    problem: str | os.PathLike,
    limits: Limits = DEFAULT_LIMITS,
    strict: bool = False,
    contingent: bool = False,
) -> tuple[Domain, Problem]:
    """Read a domain and one of its problems (paths or PDDL text); ``strict`` refuses what
    planners tolerate, ``contingent`` reads the contingent dialect (see the module's
    docstring)."""
    d = parse_domain(domain, limits, strict, contingent)
    return d, parse_problem(problem, d, limits, strict, contingent)
