"""The warm process that :mod:`planloop.pddl.fd_worker` starts to run Fast Downward.

Run as ``python -S fd_worker_process.py <parent pid>`` with ``PYTHONPATH`` set to Fast
Downward's ``bin/`` folder, it imports the translator once, then serves JSON lines on
stdin. ``{"id", "cwd", "argv", "stdin", "env", "log", "memory"}`` forks a child, a
process group of its own in folder ``cwd`` reading file ``stdin`` (or nothing), writing
file ``log`` and with at most ``memory`` bytes of address space (when given), which runs
``argv``: ``["-m", module, *args]`` as ``python -S -m`` would, in the child itself (the
translator, already imported), any other program by exec with environment ``env``. ``{"kill": id}`` kills that
group. It answers ``{"id", "pid"}`` at each fork and ``{"id", "code"}`` (the exit code,
minus the signal when killed) when a child ends. It and its children die with their
parent: at EOF on stdin, and on Linux by a parent-death signal.

Imports only the standard library, so :mod:`planloop.pddl.fd_planner` imports
:func:`die_with_parent` from it.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import io
import json
import os
import resource
import runpy
import selectors
import signal
import sys
import traceback

# Imported once, before any fork: the translator, and what its runs would import late.
PRELOAD = (
    "fast_downward.translate.main",
    "fast_downward.translate.greedy_join",
    "fast_downward.translate.split_rules",
    "locale",
    "shutil",
)
_PR_SET_PDEATHSIG = 1


def _load_prctl():
    """libc's ``prctl`` on Linux, else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _load_prctl()  # loaded at import, before any fork


def die_with_parent(parent: int) -> None:
    """Have this process killed when its parent (of pid ``parent``) dies, on Linux; exit
    at once if it has died already. Safe between fork and exec: no imports, no locks."""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, int(signal.SIGKILL))
        if os.getppid() != parent:
            os._exit(1)


def _child(request: dict, worker: int) -> int:
    """In a forked child of ``worker``: run the request; the exit code of a module run
    in-process (a program replaces the child). Never raises."""
    code = 1
    try:
        _isolate(request, worker)
        argv = request["argv"]
        if argv[0] != "-m":
            os.execve(argv[0], argv, request["env"])
        code = _run_module(argv[1], argv[2:])
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
    except BaseException:
        with contextlib.suppress(BaseException):
            traceback.print_exc()
            sys.stderr.flush()
    return code


def _isolate(request: dict, worker: int) -> None:
    """Make this child the request's process group, dying with ``worker``, in its folder,
    with its input, output and memory limit."""
    os.setsid()
    die_with_parent(worker)
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.chdir(request["cwd"])
    for path, flags, targets in (
        (request["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, (1, 2)),
        (request["stdin"] or os.devnull, os.O_RDONLY, (0,)),  # a failure here is logged
    ):
        fd = os.open(path, flags, 0o600)
        for target in targets:
            os.dup2(fd, target)
        os.close(fd)
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False))
    sys.stderr = io.TextIOWrapper(
        io.FileIO(2, "w", closefd=False), errors="backslashreplace", line_buffering=True
    )
    if request["memory"] is not None:
        resource.setrlimit(resource.RLIMIT_AS, (request["memory"], request["memory"]))


def _run_module(module: str, args: list[str]) -> int:
    """``module`` run as ``__main__`` with ``args``; its exit code as the interpreter
    makes it."""
    sys.argv = [module, *args]
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        print(exc.code, file=sys.stderr)
        return 1
    except BaseException:
        traceback.print_exc()
        return 1
    return 0


class _Worker:
    """The request loop: one thread, woken by stdin and by SIGCHLD."""

    def __init__(self) -> None:
        self.children: dict[int, int] = {}  # pid -> request id
        self.pending = b""
        self.selector = selectors.DefaultSelector()
        self.wakeup, wakeup_in = os.pipe()
        for fd in (self.wakeup, wakeup_in):
            os.set_blocking(fd, False)
        signal.set_wakeup_fd(wakeup_in)
        signal.signal(signal.SIGCHLD, lambda signum, frame: None)
        self.selector.register(0, selectors.EVENT_READ)
        self.selector.register(self.wakeup, selectors.EVENT_READ)

    def serve(self) -> None:
        """Serve until stdin ends, then kill the children still running."""
        try:
            while self._step():
                pass
        finally:
            for pid in self.children:
                kill_group(pid)

    def _step(self) -> bool:
        for key, _ in self.selector.select():
            if key.fd == self.wakeup:
                while _drained(self.wakeup):
                    pass
                self._reap()
            elif not self._read():
                return False
        return True

    def _read(self) -> bool:
        """Handle the complete request lines on stdin; False at EOF."""
        data = os.read(0, 1 << 16)
        if not data:
            return False
        *lines, self.pending = (self.pending + data).split(b"\n")
        for line in lines:
            self._handle(json.loads(line))
        return True

    def _handle(self, request: dict) -> None:
        if "kill" in request:
            for pid, ident in self.children.items():
                if ident == request["kill"]:
                    kill_group(pid)
            return
        worker = os.getpid()
        pid = os.fork()
        if pid == 0:
            os._exit(_child(request, worker))
        self.children[pid] = request["id"]
        _answer({"id": request["id"], "pid": pid})

    def _reap(self) -> None:
        while self.children:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                return
            _answer({"id": self.children.pop(pid), "code": os.waitstatus_to_exitcode(status)})


def _drained(fd: int) -> bool:
    """Read what is waiting on non-blocking ``fd``; whether there was any."""
    try:
        return bool(os.read(fd, 512))
    except BlockingIOError:
        return False


def kill_group(pid: int) -> None:
    """SIGKILL the process group of ``pid``, if it still runs."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:  # it has just ended
        pass


def _answer(reply: dict) -> None:
    os.write(1, json.dumps(reply).encode() + b"\n")


def main() -> None:
    die_with_parent(int(sys.argv[1]))
    del sys.path[0]  # this script's folder, planloop/pddl, whose modules are no top-level ones
    for name in PRELOAD:
        importlib.import_module(name)
    _Worker().serve()


if __name__ == "__main__":
    main()
