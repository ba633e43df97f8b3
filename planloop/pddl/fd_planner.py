"""Fast Downward's planners, run from the ``up-fast-downward`` wheel: its translator runs
in a ``python -S`` with ``PYTHONPATH`` set to the wheel's ``bin/`` folder (so no other
``fast_downward`` package in site-packages is seen), then its ``downward`` binary
searches. Both are forked by a warm worker (see :mod:`planloop.pddl.fd_worker`);
``PLANLOOP_FD_WORKER=0`` in the environment starts them per call instead
(``python -S -m fast_downward.translate``, then ``downward``). A task's translation is
kept by the hash of its texts (:data:`TRANSLATIONS`): the same task again costs the
search alone. Model text only ever reaches the planner as files written by
:mod:`planloop.pddl.writer`, and only argv lists are run, each in a process group and a
temporary folder of its own.

(Not named ``fast_downward``: the worker runs with this folder first on its path, where
that name would hide the translator's package.)
"""

from __future__ import annotations

import hashlib
import importlib.util
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
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from . import fd_worker
from .fd_worker_process import die_with_parent
from .memo import Memo
from .model import Domain, Problem
from .plan_result import PlanResult, PlanStatus
from .plans import parse_plan
from .writer import write_domain, write_problem

FAST_DOWNWARD_PLANNERS = {
    "lama-first": "lama-first",
    "seq-sat-lama-2011": "seq-sat-lama-2011",
    "astar(lmcut())": "seq-opt-lmcut",
    "seq-opt-lmcut": "seq-opt-lmcut",
}
# Fast Downward's translations (SAS files) of the last 16 (domain, problem) texts, by their
# hash, each of at most 4 MiB: solving the same task again costs the search alone
TRANSLATIONS: Memo[bytes] = Memo(16)
TRANSLATION_MAX_BYTES = 4 << 20
FD_WORKER_VARIABLE = "PLANLOOP_FD_WORKER"  # "0": Fast Downward's stages started per call
_DIR_PREFIX = "planloop-fd-"  # then the owner's pid: planloop-fd-<pid>-XXXX
_OWNED_DIR = re.compile(re.escape(_DIR_PREFIX) + r"(\d+)-")


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


def classify(code: int) -> PlanStatus:
    """The status a Fast Downward exit code stands for."""
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
def sigterm_exits() -> Iterator[None]:
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


def solve_fast_downward(
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
        sigterm_exits(),
        tempfile.TemporaryDirectory(prefix=f"{_DIR_PREFIX}{os.getpid()}-") as tmp,
    ):
        code, out = _translate(d, p, tmp, deadline, memory_limit_mb, stop)
        if code is None:
            return result("timeout", f"translation did not finish within {timeout} s")
        if code != 0:
            status = classify(code)
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
            code is None or classify(code) in ("solved", "timeout", "out_of_memory")
        ):
            return result("solved", f"plan of {len(plan)} steps", plan, code)
        if code is None:
            return result("timeout", f"no plan within {timeout} s")
        status = classify(code)
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
