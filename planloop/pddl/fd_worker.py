"""Fast Downward run by a warm worker process (:mod:`planloop.pddl.fd_worker_process`),
which imports the translator once and forks a child per translation, saving each call
the ~50 ms of starting Python and importing it; it forks the ``downward`` search too,
which costs less from that small process than from a large caller.

One worker serves the whole process and runs its jobs side by side, so concurrent solves
do not queue. It starts with the first job, from a thread that lives as long as it does
(Linux ties the parent-death signal to the thread that started a process), and a new one
replaces it when it dies, unless it died before finishing any job (it is broken, say):
then :func:`run` raises :class:`WorkerLost` for good, as it does when a job is lost with
its worker, and the caller runs the job as a subprocess of its own.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from ..errors import PlanloopError
from .fd_worker_process import die_with_parent, kill_group

KILL_WAIT_SECONDS = 5.0  # then a worker that has not confirmed a kill is killed itself
STOP_POLL_SECONDS = 0.02  # how often a wait checks its stop event (planners' too)


class WorkerLost(PlanloopError, RuntimeError):
    """The worker could not start, or died before the job ended."""


@dataclass
class _Call:
    """One job: the file of its output, its child's pid once forked, its exit code once
    ended."""

    log: str
    done: threading.Event = field(default_factory=threading.Event)
    pid: int | None = None
    code: int | None = None
    lost: bool = False

    def orphaned(self) -> None:
        """Kill the job's process group, lost with its worker (where no parent-death
        signal has killed it already)."""
        if self.pid is not None:
            kill_group(self.pid)


class _Worker:
    """A worker process, and the thread that starts it and reads its answers."""

    def __init__(self, env: dict[str, str]) -> None:
        self.lost = False
        self.answered = False  # whether a job has ended
        self._calls: dict[int, _Call] = {}
        self._lock = threading.Lock()  # guards the above
        self._write_lock = threading.Lock()
        self._ids = itertools.count()
        self._proc: subprocess.Popen | None = None
        started = threading.Event()
        reader = threading.Thread(
            target=self._serve, args=(env, started), name="planloop-fd-worker", daemon=True
        )
        try:
            reader.start()
        except RuntimeError:  # no thread to be had
            self.lost = True
            return
        started.wait()

    def _serve(self, env: dict[str, str], started: threading.Event) -> None:
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-S", str(Path(__file__).with_name("fd_worker_process.py"))]
                + [str(os.getpid())],
                cwd="/",
                env=_tuned(env),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                preexec_fn=partial(die_with_parent, os.getpid()),
            )
        except OSError:
            self._lose()
            return
        finally:
            started.set()
        assert self._proc.stdout is not None  # stdout=PIPE
        try:
            for line in self._proc.stdout:
                self._receive(json.loads(line))
        finally:  # it died, or garbled an answer: then it is not to be trusted
            self._proc.kill()
            self._proc.wait()
            self._lose()

    def _receive(self, reply: dict) -> None:
        with self._lock:
            call = self._calls.get(reply["id"])
            if call is None:
                return
            if "pid" in reply:
                call.pid = reply["pid"]
                return
            del self._calls[reply["id"]]
            self.answered = True
        call.code = reply["code"]
        call.done.set()

    def _lose(self) -> None:
        with self._lock:
            self.lost = True
            calls, self._calls = self._calls, {}
        for call in calls.values():
            call.lost = True
            call.done.set()

    def submit(self, job: dict) -> tuple[int, _Call]:
        """Start ``job`` (a request of :mod:`planloop.pddl.fd_worker_process` but its id
        and log); its id and call. Raises WorkerLost."""
        with self._lock:
            if self.lost:
                raise WorkerLost("the Fast Downward worker is not running")
            ident = next(self._ids)
            call = self._calls[ident] = _Call(f"planloop-job-{ident}.log")
        self._send({"id": ident, "log": call.log, **job})
        return ident, call

    def kill(self, ident: int, call: _Call) -> None:
        """End job ``ident`` and wait until it has; a worker that does not answer within
        KILL_WAIT_SECONDS is killed, and the job's process group too."""
        self._send({"kill": ident})
        if call.done.wait(KILL_WAIT_SECONDS):
            return
        assert self._proc is not None  # calls are only made to a started worker
        self._proc.kill()
        call.orphaned()

    def _send(self, message: dict) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        try:
            with self._write_lock:
                self._proc.stdin.write(json.dumps(message).encode() + b"\n")
                self._proc.stdin.flush()
        except OSError:  # the worker has died: the reader thread loses its calls
            pass


def _tuned(env: dict[str, str]) -> dict[str, str]:
    """``env`` with, unless it tunes glibc otherwise, transparent huge pages for what
    malloc maps (where the kernel grants them on request): the page faults of each
    translation's fresh memory (the translator first reserves 10 MB for reporting
    running out of it) cost a third, for a megabyte or two more address space. Programs
    run with their own environment, untuned."""
    return {"GLIBC_TUNABLES": "glibc.malloc.hugetlb=1", **env}


_WORKER: _Worker | None = None
_WORKER_LOCK = threading.Lock()


def _worker(env: dict[str, str]) -> _Worker:
    """The running worker, started if need be (see the module's docstring)."""
    global _WORKER
    with _WORKER_LOCK:
        if _WORKER is None or (_WORKER.lost and _WORKER.answered):
            _WORKER = _Worker(env)
        return _WORKER


def _forget_worker() -> None:
    """In a forked child: the parent's worker is not this process's."""
    global _WORKER, _WORKER_LOCK
    _WORKER, _WORKER_LOCK = None, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_worker)


def run(
    argv: list[str],
    cwd: str,
    stdin: str | None,
    env: dict[str, str],
    deadline: float,
    memory_limit_mb: int | None,
    stop: threading.Event | None = None,
) -> tuple[int | None, str]:
    """Run ``argv`` (a program's, or ``["-m", module, *args]`` for a module on the
    ``PYTHONPATH`` of ``env``, as ``python -S`` would) in folder ``cwd`` reading its file
    ``stdin`` (or nothing), with environment ``env`` (a module: the environment the worker
    started with, the first call's): (its exit code, or None when stopped at ``deadline``
    or once ``stop`` is set, and its output). Its process group is killed however this
    call ends, and when the worker dies; ``memory_limit_mb`` caps its address space.
    Raises WorkerLost (see the module's docstring)."""
    worker = _worker(env)
    memory = memory_limit_mb * 1024 * 1024 if memory_limit_mb else None
    ident, call = worker.submit(
        {"cwd": cwd, "argv": argv, "stdin": stdin, "env": env, "memory": memory}
    )
    try:
        finished = _wait(call.done, deadline, stop)
    finally:
        if not call.done.is_set():  # timeout, stop or interrupt: leave nothing running
            worker.kill(ident, call)
    if finished and call.lost:
        call.orphaned()
        raise WorkerLost("the Fast Downward worker died")
    log = Path(cwd, call.log)
    output = log.read_bytes().decode(errors="replace") if log.exists() else ""
    return (call.code if finished else None), output


def _wait(done: threading.Event, deadline: float, stop: threading.Event | None) -> bool:
    """Wait for ``done`` until ``deadline`` or until ``stop`` is set; whether it is set."""
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or (stop is not None and stop.is_set()):
            return done.is_set()
        if done.wait(left if stop is None else min(left, STOP_POLL_SECONDS)):
            return True
