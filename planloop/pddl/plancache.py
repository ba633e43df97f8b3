"""A bounded, thread-safe cache of planner results for identical (domain, problem) pairs."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

from . import planners
from .diagnostics import PDDLError
from .model import Domain, Problem
from .plan_result import PlanResult
from .source import DEFAULT_LIMITS, Limits, read_source
from .writer import write_domain, write_problem

CACHED_STATUSES = ("solved", "unsolvable")


class PlanCache:
    """``solve`` with a memory: ``cache.solve(domain, problem, ...)`` takes the arguments
    of :func:`planloop.pddl.solve`, keeps its contract (never raises) and returns the
    stored result for a pair it has solved before.

    The key is a hash of the domain's and the problem's text (a path is read; a model is
    written out), the planner and the limits. Only ``solved`` and ``unsolvable`` results
    are stored (a plan stays valid and a proof stays a proof whatever time or memory
    was allowed), so ``timeout`` and ``memory_limit_mb`` are not part of the key and a
    timeout or an error is solved again next time. The least recently used of more than
    ``maxsize`` results is dropped. Two threads asking for the same new pair at once may
    both solve it. ``hits`` counts the calls answered from the cache, ``misses`` those
    that ran the planner.
    """

    def __init__(self, maxsize: int = 1024):
        if maxsize < 1:
            raise ValueError(f"maxsize must be at least 1, not {maxsize}")
        self.maxsize = maxsize
        self.hits = self.misses = 0
        self._results: OrderedDict[str, PlanResult] = OrderedDict()
        self._lock = threading.Lock()

    def __reduce__(self):
        """A copy in another process (a Ray worker) starts empty."""
        return PlanCache, (self.maxsize,)

    def __len__(self) -> int:
        return len(self._results)

    def solve(
        self,
        domain,
        problem,
        planner: str = "lama-first",
        timeout: float = 60.0,
        memory_limit_mb: int | None = None,
        limits: Limits = DEFAULT_LIMITS,
        strict: bool = False,
    ) -> PlanResult:
        """:func:`planloop.pddl.solve`, answered from the cache when it can be."""
        key = _key(domain, problem, planner, limits, strict)
        with self._lock:
            found = None if key is None else self._results.get(key)
            if key is not None and found is not None:
                self._results.move_to_end(key)
                self.hits += 1
                return found
            self.misses += 1
        result = planners.solve(domain, problem, planner, timeout, memory_limit_mb, limits, strict)
        if key is not None and result.status in CACHED_STATUSES:
            with self._lock:
                self._results[key] = result
                self._results.move_to_end(key)
                while len(self._results) > self.maxsize:
                    self._results.popitem(last=False)
        return result


def _key(domain, problem, planner, limits, strict) -> str | None:
    """The hash naming a call, or None for a call that is not cached: input that cannot
    be read (``solve`` answers ``invalid_input``) or a problem model of a domain given
    as text."""
    if not isinstance(limits, Limits):
        return None
    try:
        domain_text = (
            write_domain(domain)
            if isinstance(domain, Domain)
            else read_source(domain, "domain", limits)
        )
        if isinstance(problem, Problem):
            if not isinstance(domain, Domain):
                return None
            problem_text = write_problem(problem, domain)
        else:
            problem_text = read_source(problem, "problem", limits)
    except PDDLError:
        return None
    digest = hashlib.sha256()
    for part in (domain_text, problem_text, repr(planner), repr(limits), repr(strict)):
        data = part.encode("utf-8", "surrogatepass")
        digest.update(b"%d:" % len(data) + data)
    return digest.hexdigest()
