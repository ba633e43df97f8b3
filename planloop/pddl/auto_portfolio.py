"""The ``auto`` planner, a portfolio with the contract of ``lama-first`` (any valid plan):
an invariant check, then the in-process search racing ``lama-first``, which starts only
when the in-process search has not answered quickly (a new small task costs Fast
Downward about 40 ms with the warm worker, 115 ms started per call)."""

from __future__ import annotations

import math
import threading
import time
from collections import Counter, OrderedDict
from dataclasses import replace
from functools import lru_cache

from .builtin_planners import run_search
from .deadline import Check, SearchTimeout, both, deadline_check
from .diagnostics import PDDLError
from .fd_planner import sigterm_exits, solve_fast_downward
from .grounder import flat_conjuncts
from .grounding import Task, ground
from .heuristics import RelaxedTask
from .invariants import impossible_pair
from .model import Atom, Domain, Problem
from .plan_result import PlanResult
from .portfolio import Checked, Race
from .search import greedy_best_first, width_first
from .source import Limits

# auto (see solve_auto) grounds in-process a task of at most AUTO_GROUND_LIMIT actions (else
# it tries AUTO_TRY_GROUND_LIMIT), searches it alone for AUTO_ALONE_SECONDS if it has at most
# AUTO_MAX_ACTIONS reachable ones, then beside Fast Downward for at most AUTO_SEARCH_SECONDS.
# See benchmarks/bench_formalizer_planning.py and docs/performance.md for the measurements
# behind them.
AUTO_GROUND_LIMIT = 10_000
AUTO_TRY_GROUND_LIMIT = 2000
AUTO_MAX_ACTIONS = 10_000
AUTO_ALONE_SECONDS = 0.1
AUTO_SEARCH_SECONDS = 10.0
AUTO_INVARIANT_SECONDS = 0.5  # the most the invariant check may take (it then gives up)


def solve_auto(
    d: Domain, p: Problem, timeout: float, memory_limit_mb: int | None, start: float, limits: Limits
) -> PlanResult:
    """A portfolio: a goal that an invariant of the domain refutes (within
    AUTO_INVARIANT_SECONDS) is unsolvable at once; else the in-process search (1-BFWS,
    then greedy best-first search where 1-BFWS finds nothing; named ``auto/gbfs``)
    races Fast Downward's lama-first (see
    :class:`~planloop.pddl.portfolio.Race`) and the first definitive answer wins.
    Fast Downward starts once the in-process work has run alone for AUTO_ALONE_SECONDS
    (small tasks never start it), or when the task cannot be searched in-process.
    ``memory_limit_mb`` binds only Fast Downward (the in-process search is bounded by
    AUTO_MAX_ACTIONS and AUTO_SEARCH_SECONDS)."""
    refuted = invariant_refutation(d, p, timeout, start, "auto/invariant")
    if refuted is not None:
        return refuted

    def fast_downward(stop: threading.Event) -> PlanResult:
        return solve_fast_downward(d, p, "lama-first", timeout, memory_limit_mb, start, stop)

    with (
        sigterm_exits(),
        Race(fast_downward, start, AUTO_ALONE_SECONDS, AUTO_SEARCH_SECONDS) as race,
    ):
        return _race(d, p, race, timeout, start, limits)


def invariant_refutation(
    d: Domain, p: Problem, timeout: float, start: float, name: str
) -> PlanResult | None:
    """``unsolvable`` (planner ``name``) when an invariant of the domain refutes the goal
    within AUTO_INVARIANT_SECONDS (and by ``start + timeout``); else None. Sound: a task
    with a plan is never refuted."""
    try:
        pair = impossible_pair(
            d, p, deadline_check(min(start + timeout, time.monotonic() + AUTO_INVARIANT_SECONDS))
        )
    except SearchTimeout:
        return None
    if pair is None:
        return None
    return PlanResult(
        "unsolvable",
        None,
        f"no plan exists: the goal needs {pair[0]} and "
        f"{pair[1]} together, and no reachable state has both",
        time.monotonic() - start,
        name,
    )


def _race(
    d: Domain, p: Problem, race: Race, timeout: float, start: float, limits: Limits
) -> PlanResult:
    """The in-process side of ``race``, and the answer of the race."""
    try:
        task, relaxed = _auto_task(d, p, limits, both(race.check, deadline_check(start + timeout)))
    except PDDLError as exc:
        return _rival(race, f"not grounded in-process ({exc})")
    except SearchTimeout:
        return _rival(race, "not grounded in-process in time")
    if relaxed is None:
        return _rival(race, f"{len(task.actions):,} ground actions, more than {AUTO_MAX_ACTIONS:,}")
    if relaxed.relaxed_plan(task.init) is None:
        return PlanResult(
            "unsolvable",
            None,
            "no plan exists: the goal is unreachable even ignoring delete effects",
            time.monotonic() - start,
            "auto/gbfs",
        )
    checked = Checked(relaxed, race.check)

    def search(t: Task, timeout: float):
        """1-BFWS, as the PDDLego+ authors' planner starts; greedy best-first search
        (complete) where its pruning left no plan."""
        ends = time.monotonic() + timeout
        plan = width_first(t, timeout, relaxed, race.check)
        if plan is not None:
            return plan
        return greedy_best_first(t, max(0.0, ends - time.monotonic()), checked)

    result = run_search(task, search, "auto/gbfs", start, timeout)
    if result.status != "timeout":
        return result
    if race.rival_won():
        return _rival(race, "Fast Downward answered first")
    if race.rival is not None and race.rival_failed():  # the search went on alone to timeout
        return replace(result, message=f"{result.message}; lama-first: {race.rival.wait().message}")
    if race.rival is None and time.monotonic() >= start + timeout:
        return result
    return _rival(race, f"no in-process plan within {min(AUTO_SEARCH_SECONDS, timeout)} s")


def _auto_limits(d: Domain, p: Problem, limits: Limits) -> Limits:
    """``limits`` for grounding in-process: at most AUTO_GROUND_LIMIT actions when no more
    can be enumerated (see :func:`_most_ground_actions`), else AUTO_TRY_GROUND_LIMIT."""
    most = min(limits.max_ground_actions, AUTO_GROUND_LIMIT)
    if _most_ground_actions(d, p) > most:
        most = min(most, AUTO_TRY_GROUND_LIMIT)
    return replace(limits, max_ground_actions=most)


def _most_ground_actions(d: Domain, p: Problem) -> int:
    """The most actions grounding can enumerate: for each action, the product of its
    parameters' numbers of objects, each restricted by the static one-parameter atoms its
    precondition conjoins (grounding prunes further with the other static atoms; a
    model-written domain seldom has any)."""
    objects = {**d.constants, **p.objects}
    of_type = Counter(objects.values())
    static = set(d.predicates) - d.changed_predicates()
    holds: dict[str, set[str]] = {}
    for fact in p.init:
        if fact.predicate in static and len(fact.args) == 1:
            holds.setdefault(fact.predicate, set()).add(fact.args[0])

    above = {t: frozenset(d.ancestors(t)) for t in of_type}

    @lru_cache(maxsize=None)
    def count(types: tuple[str, ...], needs: tuple[str, ...]) -> int:
        if not needs:
            return sum(n for t, n in of_type.items() if not above[t].isdisjoint(types))
        return sum(
            not above[t].isdisjoint(types) and all(o in holds.get(q, ()) for q in needs)
            for o, t in objects.items()
        )

    total = 0
    for action in d.actions.values():
        unary = [
            f
            for f in flat_conjuncts(action.precondition)
            if isinstance(f, Atom) and f.predicate in static and len(f.args) == 1
        ]
        total += math.prod(
            count(param.types, tuple(f.predicate for f in unary if f.args[0] == param.name))
            for param in action.params
        )
    return total


def _rival(race: Race, reason: str) -> PlanResult:
    """Fast Downward's result (started now if it has not yet), after ``reason``."""
    result = race.launch().wait()
    return replace(result, message=f"{reason}; {result.message}", planner="auto/lama-first")


_LAST_TASKS: OrderedDict[tuple[int, Limits], tuple[Task, RelaxedTask | None]] = OrderedDict()
_LAST_TASKS_LOCK = threading.Lock()


def _auto_task(
    d: Domain, p: Problem, limits: Limits, check: Check | None
) -> tuple[Task, RelaxedTask | None]:
    """``ground(d, p, ...)`` within :func:`_auto_limits`'s limits, calling ``check``, and,
    when it has at most AUTO_MAX_ACTIONS actions, its relaxation. Both come from the last
    task of ``d`` when ``p`` has its objects and static facts (the ground actions, see
    :meth:`Task.with_problem`) and its reachable actions and facts (the relaxation,
    compiled again for another goal only: :meth:`RelaxedTask.with_goal`). The last tasks
    of 8 domains are kept."""
    key = (id(d), limits)
    with _LAST_TASKS_LOCK:
        last, last_relaxed = _LAST_TASKS.get(key, (None, None))
    task = None
    within = min(limits.max_ground_actions, AUTO_GROUND_LIMIT)  # a task grounded within it
    if last is not None and last.domain is d and last.instantiated <= within:
        task = last.with_problem(p)
    if task is None:
        task = ground(d, p, _auto_limits(d, p, limits), check)
    relaxed = None
    if len(task.actions) <= AUTO_MAX_ACTIONS:
        if last is None or last_relaxed is None or not last_relaxed.fits(task):
            relaxed = RelaxedTask(task)
        elif task.goal == last.goal:
            relaxed = last_relaxed
        else:
            relaxed = last_relaxed.with_goal(task)
    with _LAST_TASKS_LOCK:
        _LAST_TASKS[key] = task, relaxed
        _LAST_TASKS.move_to_end(key)
        while len(_LAST_TASKS) > 8:
            _LAST_TASKS.popitem(last=False)
    return task, relaxed
