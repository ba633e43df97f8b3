"""PDDL read as the PDDLego+ authors' solver read it: FF's parser (in LAPKT's
``dual-bfws-ffparser``) accepts some files planloop's reader refuses and refuses some it
accepts; :func:`read_ff` gives the task FF's parser would give, or a
:class:`~.diagnostics.PDDLError` (with planloop's line:col diagnostics) where FF's parser
refuses the files."""

from __future__ import annotations

from .model import Domain, Problem
from .reader import parse_domain, parse_problem
from .source import Limits


def read_ff(domain: str, problem: str, limits: Limits) -> tuple[Domain, Problem]:
    """The domain and problem texts read as FF's parser reads them."""
    d = parse_domain(domain, limits, False)
    return d, parse_problem(problem, d, limits, False)
