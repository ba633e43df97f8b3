"""One call for every planner: ``solve(domain, problem, planner=..., timeout=...)``, and
the planners' names. Each kind of planner is a module of its own: Fast Downward's
(:mod:`.fd_planner`), the in-process searches (:mod:`.builtin_planners`) and the
``auto`` portfolio of both (:mod:`.auto_portfolio`); each returns a
:class:`~.plan_result.PlanResult`.
"""

from __future__ import annotations

import re
import time
from functools import lru_cache

from .authors_planner import solve_authors
from .auto_portfolio import solve_auto
from .builtin_planners import BUILTIN_PLANNERS, solve_builtin
from .diagnostics import PDDLError, received
from .fd_planner import FAST_DOWNWARD_PLANNERS, solve_fast_downward
from .ff_reading import read_ff

# planloop/cli.py and planloop/study/errors.py import these from here
from .model import Domain, Problem
from .plan_result import PlanResult, timed_out
from .reader import parse_domain, parse_problem
from .source import DEFAULT_LIMITS, Limits, source_path

PLANNERS = tuple(FAST_DOWNWARD_PLANNERS) + tuple(BUILTIN_PLANNERS) + ("auto", "authors")
# the names a command line offers: each types without shell quoting (astar(lmcut()) is
# seq-opt-lmcut's other name, for solve() callers)
PLANNER_NAMES = tuple(name for name in PLANNERS if re.fullmatch(r"[\w.-]+", name))


def _load(domain, problem, limits: Limits, strict: bool) -> tuple[Domain, Problem]:
    if isinstance(domain, Domain):
        d = domain
    elif isinstance(domain, str) and len(domain) <= 100_000 and source_path(domain) is None:
        d = _domain_from_text(domain, limits, strict)
    else:
        d = parse_domain(domain, limits, strict)
    p = problem if isinstance(problem, Problem) else parse_problem(problem, d, limits, strict)
    return d, p


@lru_cache(maxsize=16)
def _domain_from_text(text: str, limits: Limits, strict: bool) -> Domain:
    """A domain read from PDDL text (of at most 100,000 characters), remembered: a loop
    plans many problems of one domain."""
    return parse_domain(text, limits, strict)


def solve(
    domain,
    problem,
    planner: str = "lama-first",
    timeout: float = 60.0,
    memory_limit_mb: int | None = None,
    limits: Limits = DEFAULT_LIMITS,
    strict: bool = False,
) -> PlanResult:
    """Solve ``problem`` (path, text or model) of ``domain`` with ``planner``, reading
    text within ``limits``, the planners' way unless ``strict`` (see
    :mod:`planloop.pddl.reader`).

    Never raises for bad input: a bad argument (malformed PDDL, text that is not PDDL, an
    unknown planner, a timeout that is no positive number, a task past ``limits``...)
    gives status ``invalid_input`` with what was wrong in ``message``. ``timeout`` bounds
    the whole call, reading and grounding included (status ``timeout``). Plans are for
    unit action costs.
    """
    start = time.monotonic()
    wrong = _wrong_option(planner, timeout, memory_limit_mb, limits)
    if wrong is not None:
        return PlanResult("invalid_input", None, wrong, time.monotonic() - start, str(planner))
    try:
        if (
            planner == "authors"
            and not isinstance(domain, Domain)
            and not isinstance(problem, Problem)
        ):
            d, p = read_ff(domain, problem, limits)
        else:
            d, p = _load(domain, problem, limits, strict is True)
    except PDDLError as exc:
        return PlanResult("invalid_input", None, str(exc), time.monotonic() - start, planner)
    if time.monotonic() > start + timeout:
        return timed_out(planner, "reading the task", timeout, start)
    if planner in BUILTIN_PLANNERS:
        return solve_builtin(d, p, planner, timeout, start, limits)
    if planner == "auto":
        return solve_auto(d, p, timeout, memory_limit_mb, start, limits)
    if planner == "authors":
        return solve_authors(d, p, timeout, start, limits)
    return solve_fast_downward(d, p, planner, timeout, memory_limit_mb, start)


def _wrong_option(planner, timeout, memory_limit_mb, limits) -> str | None:
    """What is wrong with the options of :func:`solve`, or None."""
    if not isinstance(planner, str) or planner not in PLANNERS:
        return f"unknown planner {received(planner)}; choose one of {', '.join(PLANNERS)}"
    if not isinstance(timeout, (int, float)) or not timeout > 0:
        return f"timeout must be a positive number of seconds, received {received(timeout)}"
    if memory_limit_mb is not None and (
        not isinstance(memory_limit_mb, int) or memory_limit_mb <= 0
    ):
        return (
            f"memory_limit_mb must be None or a positive int, received {received(memory_limit_mb)}"
        )
    if not isinstance(limits, Limits):
        return f"limits must be a Limits, received {received(limits)}"
    return None
