"""The ``authors`` planner: the PDDLego+ authors' solver (planning.domains'
``dual-bfws-ffparser``: LAPKT's DUAL-BFWS behind FF's parser) as planloop reproduces it,
so that a model's files get the plan, or the refusal, the authors' runs recorded. The
files are read as FF's parser reads them (:mod:`.ff_reading`) and searched as DUAL-BFWS
searches (:func:`.dual_bfws.dual_bfws`)."""

from __future__ import annotations

import time

from .auto_portfolio import invariant_refutation
from .builtin_planners import run_search
from .deadline import SearchTimeout, deadline_check
from .diagnostics import PDDLError
from .dual_bfws import dual_bfws
from .grounding import ground
from .model import Domain, Problem
from .plan_result import PlanResult, timed_out
from .source import Limits

NAME = "authors"


def solve_authors(
    d: Domain, p: Problem, timeout: float, start: float, limits: Limits
) -> PlanResult:
    """DUAL-BFWS's result for the task read by :func:`.ff_reading.read_ff`, grounded
    within ``limits``, all by ``start + timeout``; first, as ``auto`` does, the
    invariant check, which proves some tasks with no plan to have none at once (where
    the search would take long to exhaust them) and never refutes a task with a plan."""
    refuted = invariant_refutation(d, p, timeout, start, NAME + "/invariant")
    if refuted is not None:
        return refuted
    try:
        task = ground(d, p, limits, deadline_check(start + timeout))
    except PDDLError as exc:
        return PlanResult("invalid_input", None, str(exc), time.monotonic() - start, NAME)
    except SearchTimeout:
        return timed_out(NAME, "grounding", timeout, start)
    return run_search(task, dual_bfws, NAME, start, timeout)
