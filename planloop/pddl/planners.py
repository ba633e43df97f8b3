"""One call for every planner: ``solve(domain, problem, planner=..., timeout=...)``.

Fast Downward comes from the ``up-fast-downward`` wheel: its translator runs in a
``python -S`` with ``PYTHONPATH`` set to the wheel's ``bin/`` folder (so no other
``fast_downward`` package in site-packages is seen), then its ``downward`` binary
searches. Both are forked by a warm worker (see :mod:`planloop.pddl.fd_worker`);
``PLANLOOP_FD_WORKER=0`` in the environment starts them per call instead
(``python -S -m fast_downward.translate``, then ``downward``). A task's translation is
kept by the hash of its texts (:data:`TRANSLATIONS`): the same task again costs the
search alone. Model text only ever reaches the planner as files written by
:mod:`planloop.pddl.writer`, and only argv lists are run.

``auto`` is a portfolio with the contract of ``lama-first`` (any valid plan): an
invariant check, then the in-process search racing ``lama-first``, which starts only
when the in-process search has not answered quickly (a new small task costs Fast
Downward about 40 ms with the warm worker, 115 ms started per call).
"""

from __future__ import annotations

import hashlib
import importlib.util
import math
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Literal, get_args

from . import fd_worker
from .deadline import Check, SearchTimeout, both, deadline_check
from .diagnostics import PDDLError, received
from .fd_worker_process import die_with_parent
from .grounder import flat_conjuncts
from .grounding import Task, ground
from .heuristics import RelaxedTask
from .invariants import impossible_pair
from .memo import Memo
from .model import Atom, Domain, Problem
from .plans import parse_plan
from .portfolio import Checked, Race
from .reader import parse_domain, parse_problem
from .search import astar, breadth_first, greedy_best_first, width_first
from .source import DEFAULT_LIMITS, Limits, source_path
from .writer import write_domain, write_problem

PlanStatus = Literal["solved", "unsolvable", "timeout", "out_of_memory", "invalid_input", "error"]
STATUSES: tuple[PlanStatus, ...] = get_args(PlanStatus)
FAST_DOWNWARD_PLANNERS = {
    "lama-first": "lama-first",
    "seq-sat-lama-2011": "seq-sat-lama-2011",
    "astar(lmcut())": "seq-opt-lmcut",
    "seq-opt-lmcut": "seq-opt-lmcut",
}
BUILTIN_PLANNERS = {"bfs": breadth_first, "astar": astar, "gbfs": greedy_best_first}
PLANNERS = tuple(FAST_DOWNWARD_PLANNERS) + tuple(BUILTIN_PLANNERS) + ("auto",)
# the names a command line offers: each types without shell quoting (astar(lmcut()) is
# seq-opt-lmcut's other name, for solve() callers)
PLANNER_NAMES = tuple(name for name in PLANNERS if re.fullmatch(r"[\w.-]+", name))
# auto (see _solve_auto) grounds in-process a task of at most AUTO_GROUND_LIMIT actions (else
# it tries AUTO_TRY_GROUND_LIMIT), searches it alone for AUTO_ALONE_SECONDS if it has at most
# AUTO_MAX_ACTIONS reachable ones, then beside Fast Downward for at most AUTO_SEARCH_SECONDS.
# See benchmarks/bench_formalizer_planning.py and docs/performance.md for the measurements behind them.
AUTO_GROUND_LIMIT = 10_000
AUTO_TRY_GROUND_LIMIT = 2000
AUTO_MAX_ACTIONS = 10_000
AUTO_ALONE_SECONDS = 0.1
AUTO_SEARCH_SECONDS = 10.0
AUTO_INVARIANT_SECONDS = 0.5  # the most the invariant check may take (it then gives up)
# Fast Downward's translations (SAS files) of the last 16 (domain, problem) texts, by their
# hash, each of at most 4 MiB: solving the same task again costs the search alone
TRANSLATIONS: Memo[bytes] = Memo(16)
TRANSLATION_MAX_BYTES = 4 << 20
FD_WORKER_VARIABLE = "PLANLOOP_FD_WORKER"  # "0": Fast Downward's stages started per call
_DIR_PREFIX = "planloop-fd-"  # then the owner's pid: planloop-fd-<pid>-XXXX
_OWNED_DIR = re.compile(re.escape(_DIR_PREFIX) + r"(\d+)-")


@dataclass(frozen=True)
class PlanResult:
    """What a planner returned. ``plan`` holds ``(action args)`` strings when solved;
    ``exit_code`` is Fast Downward's last exit code (None when it did not run or finish)."""

    status: PlanStatus
    plan: tuple[str, ...] | None
    message: str
    seconds: float
    planner: str = ""
    exit_code: int | None = None

    @property
    def solved(self) -> bool:
        return self.status == "solved"


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
        d, p = _load(domain, problem, limits, strict is True)
    except PDDLError as exc:
        return PlanResult("invalid_input", None, str(exc), time.monotonic() - start, planner)
    if time.monotonic() > start + timeout:
        return _timed_out(planner, "reading the task", timeout, start)
    if planner in BUILTIN_PLANNERS:
        return _solve_builtin(d, p, planner, timeout, start, limits)
    if planner == "auto":
        return _solve_auto(d, p, timeout, memory_limit_mb, start, limits)
    return _solve_fast_downward(d, p, planner, timeout, memory_limit_mb, start)


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


def _timed_out(planner: str, doing: str, timeout: float, start: float) -> PlanResult:
    return PlanResult(
        "timeout",
        None,
        f"{doing} took more than the timeout of {timeout} s",
        time.monotonic() - start,
        planner,
    )


def _solve_builtin(
    d: Domain, p: Problem, planner: str, timeout: float, start: float, limits: Limits
):
    try:
        task = ground(d, p, limits, deadline_check(start + timeout))
    except PDDLError as exc:
        return PlanResult("invalid_input", None, str(exc), time.monotonic() - start, planner)
    except SearchTimeout:
        return _timed_out(planner, "grounding", timeout, start)
    return _search(task, BUILTIN_PLANNERS[planner], planner, start, timeout)


def _search(task: Task, search, name: str, start: float, timeout: float) -> PlanResult:
    """Run a built-in ``search(task, timeout=...)`` until ``start + timeout``; its
    PlanResult, named ``name``."""
    remaining = max(0.0, start + timeout - time.monotonic())
    try:
        plan = search(task, timeout=remaining)
    except SearchTimeout:
        return PlanResult(
            "timeout", None, f"no plan within {timeout} s", time.monotonic() - start, name
        )
    seconds = time.monotonic() - start
    if plan is None:
        return PlanResult(
            "unsolvable", None, "search space exhausted: no plan exists", seconds, name
        )
    return PlanResult(
        "solved", tuple(a.text for a in plan), f"plan of {len(plan)} steps", seconds, name
    )


def _solve_auto(
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
    try:
        pair = impossible_pair(
            d, p, deadline_check(min(start + timeout, time.monotonic() + AUTO_INVARIANT_SECONDS))
        )
    except SearchTimeout:
        pair = None
    if pair is not None:
        return PlanResult(
            "unsolvable",
            None,
            f"no plan exists: the goal needs {pair[0]} and "
            f"{pair[1]} together, and no reachable state has both",
            time.monotonic() - start,
            "auto/invariant",
        )

    def fast_downward(stop: threading.Event) -> PlanResult:
        return _solve_fast_downward(d, p, "lama-first", timeout, memory_limit_mb, start, stop)

    with (
        _sigterm_exits(),
        Race(fast_downward, start, AUTO_ALONE_SECONDS, AUTO_SEARCH_SECONDS) as race,
    ):
        return _race(d, p, race, timeout, start, limits)


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

    result = _search(task, search, "auto/gbfs", start, timeout)
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


@lru_cache(maxsize=1)
def fast_downward_paths() -> tuple[Path, Path]:
    """(the ``bin/`` folder holding the translator package, the ``downward`` binary)."""
    spec = importlib.util.find_spec("up_fast_downward")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("Fast Downward is missing: pip install up-fast-downward")
    root = Path(list(spec.submodule_search_locations)[0]) / "downward"
    bin_dir = root / "builds" / "release" / "bin"
    return bin_dir, bin_dir / "downward"


@lru_cache(maxsize=1)
def _aliases() -> dict[str, list[str]]:
    """Fast Downward's own alias table, read from the wheel's driver (not imported as a
    package, since ``up_fast_downward/__init__`` pulls in unified-planning)."""
    driver = fast_downward_paths()[0].parents[2] / "driver"
    name = "_planloop_fast_downward_driver"
    spec = importlib.util.spec_from_file_location(
        name, driver / "__init__.py", submodule_search_locations=[str(driver)]
    )
    assert spec is not None and spec.loader is not None  # a .py file always has both
    package = importlib.util.module_from_spec(spec)
    sys.modules[name] = package
    spec.loader.exec_module(package)
    return importlib.import_module(name + ".aliases").ALIASES


def search_options(planner: str) -> list[str]:
    """The ``downward`` arguments of an alias, taking its unit-cost branch."""
    options, keep = [], True
    for arg in _aliases()[FAST_DOWNWARD_PLANNERS[planner]]:
        if arg in ("--if-unit-cost", "--always"):
            keep = True
        elif arg == "--if-non-unit-cost":
            keep = False
        elif keep:
            options.append(arg)
    return options


def _classify(code: int) -> PlanStatus:
    if code in (0, 1, 2, 3):
        return "solved"
    if 10 <= code <= 13:
        return "unsolvable"
    if code in (20, 22, 24):
        return "out_of_memory"
    if code in (21, 23):
        return "timeout"
    if code in (31, 33, 36):
        return "invalid_input"
    return "error"


def _run(
    argv, cwd, env, stdin, deadline: float, memory_limit_mb, stop: threading.Event | None = None
):
    """Run argv in its own process group; (exit code or None on timeout or ``stop``,
    output).

    The group is killed however this call ends (timeout, ``stop`` set, KeyboardInterrupt,
    SystemExit); on Linux the planner is also killed when its parent dies (SIGKILL
    included), and ``memory_limit_mb`` caps its address space.
    """
    parent = os.getpid()

    def in_child():  # between fork and exec: no imports, no locks
        die_with_parent(parent)
        if memory_limit_mb:
            size = memory_limit_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (size, size))

    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=in_child,
    )
    try:
        out, _ = _communicate(proc, deadline, stop)
        return proc.returncode, out.decode(errors="replace")
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return None, out.decode(errors="replace")
    finally:
        if proc.poll() is None:  # interrupted: leave no planner running
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _communicate(proc: subprocess.Popen, deadline: float, stop: threading.Event | None):
    """``proc.communicate()``; raises TimeoutExpired at ``deadline`` or soon after ``stop``
    is set."""
    while True:
        left = max(0.01, deadline - time.monotonic())
        try:
            return proc.communicate(
                timeout=left if stop is None else min(left, fd_worker.STOP_POLL_SECONDS)
            )
        except subprocess.TimeoutExpired:
            if stop is None or stop.is_set() or time.monotonic() >= deadline:
                raise


@contextmanager
def _sigterm_exits() -> Iterator[None]:
    """While a solve runs in the main thread and SIGTERM has its default action (death),
    make SIGTERM raise ``SystemExit(143)`` instead, so that cleanup runs: the planner's
    process group is killed and its folder removed. Restores the default after."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    ):
        yield
        return
    signal.signal(signal.SIGTERM, _raise_exit)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _raise_exit(signum: int, frame) -> None:
    raise SystemExit(128 + signum)


def remove_own_folders() -> None:
    """Remove this process's planner folders, for a process about to end without
    unwinding the solves still running in its threads (an interrupted study)."""
    for folder in Path(tempfile.gettempdir()).glob(f"{_DIR_PREFIX}{os.getpid()}-*"):
        shutil.rmtree(folder, ignore_errors=True)


def _sweep_stale_dirs() -> None:
    """Remove the temporary folders of solves whose process died before cleaning up
    (killed with SIGKILL, say): those named for a pid that no longer runs."""
    for folder in Path(tempfile.gettempdir()).glob(_DIR_PREFIX + "*"):
        match = _OWNED_DIR.match(folder.name)
        if match and not _running(int(match[1])):
            shutil.rmtree(folder, ignore_errors=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):  # another user's process; too big to tell
        pass
    return True


def _constants_in_domain(d: Domain, p: Problem) -> tuple[Domain, Problem]:
    """Declare in the domain the objects its actions name but only the problem declares
    (ALFWorld's ``SinkBasinType``...), and the constants a problem declares again with a
    narrower type, with that type: Fast Downward refuses undeclared names and names
    declared twice."""
    moved = {o: t for o, t in p.objects.items() if o in d.constants or o in d.external_constants}
    if not moved:
        return d, p
    return (
        replace(d, constants={**d.constants, **moved}, external_constants=()),
        replace(p, objects={o: t for o, t in p.objects.items() if o not in moved}),
    )


def _solve_fast_downward(
    d: Domain,
    p: Problem,
    planner: str,
    timeout: float,
    memory_limit_mb: int | None,
    start: float,
    stop: threading.Event | None = None,
) -> PlanResult:
    """Fast Downward's ``planner`` on the task, until ``start + timeout`` or until ``stop``
    is set (then the result is a timeout)."""
    downward = fast_downward_paths()[1]
    deadline = start + timeout

    def result(
        status: PlanStatus,
        message: str,
        plan: tuple[str, ...] | None = None,
        code: int | None = None,
    ) -> PlanResult:
        return PlanResult(status, plan, message, time.monotonic() - start, planner, code)

    d, p = _constants_in_domain(d, p)
    _sweep_stale_dirs()
    with (
        _sigterm_exits(),
        tempfile.TemporaryDirectory(prefix=f"{_DIR_PREFIX}{os.getpid()}-") as tmp,
    ):
        code, out = _translate(d, p, tmp, deadline, memory_limit_mb, stop)
        if code is None:
            return result("timeout", f"translation did not finish within {timeout} s")
        if code != 0:
            status = _classify(code)
            if status in ("solved", "error"):  # a crash, e.g. out of memory before its handler
                status = "out_of_memory" if memory_limit_mb and "MemoryError" in out else "error"
            return result(status, f"translator exit code {code}: {_tail(out)}", code=code)
        code, out = _stage(
            [str(downward), *search_options(planner)],
            tmp,
            "output.sas",
            deadline,
            memory_limit_mb,
            stop,
        )
        plan = _best_plan(Path(tmp))
        if plan is not None and (
            code is None or _classify(code) in ("solved", "timeout", "out_of_memory")
        ):
            return result("solved", f"plan of {len(plan)} steps", plan, code)
        if code is None:
            return result("timeout", f"no plan within {timeout} s")
        status = _classify(code)
        if status == "solved":
            return result("error", f"search exit code {code} but no plan file", code=code)
        return result(status, f"search exit code {code}: {_tail(out)}", code=code)


def _translate(
    d: Domain,
    p: Problem,
    folder: str,
    deadline: float,
    memory_limit_mb: int | None,
    stop: threading.Event | None,
) -> tuple[int | None, str]:
    """``output.sas`` in ``folder``: the translation kept for the task's texts (see
    :data:`TRANSLATIONS`), else the translator's, as :func:`_stage` runs it (its exit code
    and output)."""
    texts = (write_domain(d), write_problem(p, d))
    key = hashlib.sha256("\0".join(texts).encode("utf-8", "surrogatepass")).digest()
    sas = Path(folder, "output.sas")
    kept = TRANSLATIONS.find(key)
    if kept is not None:
        sas.write_bytes(kept)
        return 0, ""
    Path(folder, "domain.pddl").write_text(texts[0])
    Path(folder, "problem.pddl").write_text(texts[1])
    argv = ["-m", "fast_downward.translate", "domain.pddl", "problem.pddl"]
    code, out = _stage(
        [*argv, "--sas-file", "output.sas"], folder, None, deadline, memory_limit_mb, stop
    )
    if code == 0 and sas.stat().st_size <= TRANSLATION_MAX_BYTES:
        TRANSLATIONS.keep(key, sas.read_bytes())
    return code, out


def _stage(
    argv: list[str],
    folder: str,
    stdin: str | None,
    deadline: float,
    memory_limit_mb: int | None,
    stop: threading.Event | None,
) -> tuple[int | None, str]:
    """A stage of Fast Downward (``argv``, a program's or ``["-m", module, *args]`` for
    the translator's Python) in ``folder`` reading its file ``stdin`` (or nothing), as
    :func:`_run` runs it: by the warm worker of :mod:`planloop.pddl.fd_worker`, else
    (``PLANLOOP_FD_WORKER=0`` in the environment, or no worker to be had) as a
    subprocess of its own."""
    env = dict(os.environ, PYTHONPATH=str(fast_downward_paths()[0]))
    if os.environ.get(FD_WORKER_VARIABLE) != "0":
        try:
            return fd_worker.run(argv, folder, stdin, env, deadline, memory_limit_mb, stop)
        except fd_worker.WorkerLost:  # what a lost search wrote is not to be trusted
            for plan in Path(folder).glob("sas_plan*"):
                plan.unlink()
    if argv[0] == "-m":
        argv = [sys.executable, "-S", *argv]
    with open(Path(folder, stdin)) if stdin else nullcontext(subprocess.DEVNULL) as source:
        return _run(argv, folder, env, source, deadline, memory_limit_mb, stop)


def _best_plan(folder: Path) -> tuple[str, ...] | None:
    """The last (best) plan an anytime search wrote: sas_plan, or sas_plan.N."""
    files = sorted(
        folder.glob("sas_plan*"), key=lambda f: int(f.suffix[1:]) if f.suffix[1:].isdigit() else 0
    )
    for path in reversed(files):
        text = path.read_text()
        if text.strip():
            return tuple(str(step) for step in parse_plan(text))
    return None


_LOG_STAMP = re.compile(r"^\[t=[^\]]*\]\s*")


def _tail(text: str, lines: int = 5) -> str:
    """The last ``lines`` lines of a log, without Fast Downward's time and memory stamps."""
    return " | ".join(_LOG_STAMP.sub("", line) for line in text.strip().splitlines()[-lines:])
