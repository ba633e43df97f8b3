"""What planloop-mcp takes from its clients: PDDL as text, files only under the roots the
server was started with, sizes within a limit, and errors that echo little of either.

Text is anything with a ``(`` in it; anything else is a path, refused unless it
resolves (symlinks followed) under a root. The environments then read what such a path
names under :meth:`Sandbox.guard`: every file they open and folder they list under a
root, a folder's members included, is resolved and checked when it is opened. An error
quotes at most :data:`EXCERPT` characters of what the client sent, and of a file read
from a root only where the fault is (line and column), never its lines.
"""

from __future__ import annotations

import functools
import os
import stat
import sys
from collections import Counter
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from ..errors import PlanloopError
from ..pddl import Domain, PDDLError, Problem, quote

EXCERPT = 80  # the most of a client's input an error quotes
MAX_BYTES = 1_000_000  # the largest domain or problem, as text or as a file
MAX_DEPTH = 64  # arrays and objects nested in a message, the message itself counted
PATH_KWARGS = ("domain", "problem", "instances", "game_file", "data_dir", "logic_dir", "layout")
FLAGS = {"max_bytes": "--max-bytes", "max_ground_actions": "--max-ground-actions"}
_FILE_EVENTS = frozenset({"open", "os.listdir", "os.scandir"})  # the audit events checked


class SandboxError(PlanloopError, ValueError):
    """Input the sandbox refuses; the message says why."""


def excerpt(text: object) -> str:
    """``text`` quoted for a message, cut after :data:`EXCERPT` characters."""
    return quote(str(text), EXCERPT)


def shorten(text: str) -> str:
    """The first line of ``text``, cut after :data:`EXCERPT` characters."""
    line = text.strip().partition("\n")[0]
    return line if len(line) <= EXCERPT else line[: EXCERPT - 3] + "..."


@dataclass(frozen=True)
class Source:
    """A domain or problem: its text, and the file it was read from (None: sent as text)."""

    text: str
    path: Path | None = None


@dataclass(frozen=True)
class Sandbox:
    """The roots a client's paths must resolve under (none: text only) and the size limit."""

    roots: tuple[Path, ...] = ()
    max_bytes: int = MAX_BYTES

    @classmethod
    def of(cls, roots=(), max_bytes: int = MAX_BYTES) -> Sandbox:
        return cls(tuple(Path(root).resolve() for root in roots), max_bytes)

    def read(self, value: object, stage: str) -> Source:
        """The ``stage`` (domain or problem) sent as text or as a path under a root."""
        if not isinstance(value, str):
            raise SandboxError(f"the {stage} must be PDDL text, not {type(value).__name__}")
        if "(" in value:
            if len(value) > self.max_bytes:
                raise SandboxError(
                    f"the {stage} text has {len(value):,} characters, more than "
                    f"the limit of {self.max_bytes:,} (--max-bytes)"
                )
            return Source(value if "\n" in value else value + "\n")  # never read as a path
        path = self.path(value, stage)
        if not path.is_file():
            raise SandboxError(f"the {stage} {excerpt(value)} is not a regular file")
        with path.open("rb") as file:
            data = file.read(self.max_bytes + 1)
        if len(data) > self.max_bytes:
            raise SandboxError(
                f"the {stage} file {excerpt(value)} has more than "
                f"{self.max_bytes:,} bytes (--max-bytes)"
            )
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise SandboxError(f"the {stage} file {excerpt(value)} is not UTF-8 text") from None
        return Source(text + "\n", path)

    def path(self, value: str, stage: str) -> Path:
        """The existing file or folder ``value`` names, resolved under a root (a relative
        path is taken from the first root)."""
        if not self.roots:
            raise SandboxError(
                f"the {stage} {excerpt(value)} is not PDDL text, and paths are "
                "not accepted: send the PDDL itself, or start the server with "
                "--root DIR"
            )
        try:
            path = (self.roots[0] / value).resolve()
            inside = any(path.is_relative_to(root) for root in self.roots)
            if inside and path.exists():
                return path
        except (OSError, RuntimeError, ValueError):  # a loop of links, a NUL byte...
            inside = False
        if not inside:
            raise SandboxError(f"the {stage} path {excerpt(value)} is outside the allowed roots")
        raise SandboxError(f"no such file: the {stage} {excerpt(value)}")

    def env_kwargs(self, env_kwargs: dict) -> tuple[dict, set[str]]:
        """``env_kwargs`` with every path-taking argument checked (PDDL text, a path under
        a root, or a ``layout``'s map), and the arguments that name a file or folder."""
        checked, on_disk = dict(env_kwargs), set()
        for key in set(PATH_KWARGS) & set(checked):
            values = checked[key]
            many = isinstance(values, list)
            found: list = []
            for value in values if many else [values]:
                if isinstance(value, Mapping):  # no path: the environment checks it
                    found.append(value)
                elif not isinstance(value, str):
                    raise SandboxError(
                        f"{key} must be PDDL text or a path, not {type(value).__name__}"
                    )
                elif "(" in value:
                    found.append(self.read(value, key).text)
                else:
                    found.append(str(self.path(value, key)))
                    on_disk.add(key)
            checked[key] = found if many else found[0]
        return checked, on_disk

    @contextmanager
    def guard(self) -> Iterator[None]:
        """Until the block ends, in this thread: every file opened and folder listed whose
        path lies under a root is checked as it is opened (see :meth:`check_opened`)."""
        _install_hook()
        token = _GUARD.set(self)
        try:
            yield
        finally:
            _GUARD.reset(token)

    def check_opened(self, name: str | bytes | os.PathLike, opening: bool) -> None:
        """A SandboxError if ``name`` lies under a root and resolves outside every root,
        is neither a regular file nor a folder, or is a file (``opening``) of more than
        ``max_bytes``; a path outside the roots is the environment's own."""
        given = os.fsdecode(name)
        given = given if os.path.isabs(given) else os.path.join(os.getcwd(), given)
        lexical = os.path.normpath(given)
        root = next(
            (
                r
                for r in self.roots
                if Path(given).is_relative_to(r) or Path(lexical).is_relative_to(r)
            ),
            None,
        )
        if root is None:
            return
        what = f"the {'file' if opening else 'folder'} {excerpt(os.path.relpath(lexical, root))}"
        try:
            real = Path(given).resolve()
            found = real.stat() if any(real.is_relative_to(r) for r in self.roots) else None
        except FileNotFoundError:
            return  # the open fails by itself
        except (OSError, RuntimeError, ValueError):  # a loop of links...
            found = None
        if found is None:
            raise SandboxError(f"{what} is outside the allowed roots")
        if stat.S_ISDIR(found.st_mode):
            return
        if not stat.S_ISREG(found.st_mode):
            raise SandboxError(f"{what} is not a regular file")
        if opening and found.st_size > self.max_bytes:
            raise SandboxError(f"{what} has more than {self.max_bytes:,} bytes (--max-bytes)")


_GUARD: ContextVar[Sandbox | None] = ContextVar("planloop_mcp_guard", default=None)


def _audit(event: str, args: tuple) -> None:
    """The audit hook: a file opened or a folder listed under a guard is checked."""
    if event in _FILE_EVENTS and args and isinstance(args[0], (str, bytes, os.PathLike)):
        sandbox = _GUARD.get()
        if sandbox is not None:
            sandbox.check_opened(args[0], event == "open")


@functools.cache
def _install_hook() -> None:
    """Add :func:`_audit` to this process's audit hooks, once (it cannot be removed)."""
    sys.addaudithook(_audit)


def sandboxed(exc: BaseException) -> SandboxError | None:
    """The SandboxError ``exc`` is, or was raised from or while handling."""
    cause: BaseException | None = exc
    while cause is not None and not isinstance(cause, SandboxError):
        cause = cause.__cause__ or cause.__context__
    return cause


def unreadable(exc: PDDLError, files: Collection[str]) -> str:
    """A reader's error in brief: the limit a task is over, or where the first fault is
    and where the form read as planners read it that led to it is, and what each is,
    unless it is in one of the stages read from ``files`` (a file's content is never
    quoted)."""
    first = exc.diagnostics[0] if exc.diagnostics else None
    if first is None:
        return "the task is not PDDL"
    over = over_limit(first.message)
    if over is not None:
        return f"the {first.stage} is too large: {over}"
    where = f" at line {first.line}, col {first.col}" if first.line is not None else ""
    others = len(exc.diagnostics) - 1
    more = f" (and {others} more)" if others else ""
    cause = first.cause
    if first.stage in files:
        behind = (
            f", which follows from a form read as planners read it at "
            f"{cause.where.removesuffix(': ')}"
            if cause is not None and cause.line is not None
            else ""
        )
        return f"the {first.stage} file has an error{where}{behind}{more}"
    because = f" (because of {cause.where}{shorten(cause.message)})" if cause is not None else ""
    return f"{first.stage} error{where}: {shorten(first.message)}{because}{more}"


def over_limit(message: str) -> str | None:
    """A refusal's words when ``message`` is one of a :class:`~planloop.pddl.Limits` (see
    ``Limits.exceeded``): what is over which limit, and this server's flag for it."""
    over, limited, _ = message.partition("; to accept more")
    if not limited:
        return None
    for field, flag in FLAGS.items():
        over = over.replace(f"({field})", f"({field}, {flag})")
    return over.strip()


def ground_actions(domain: Domain, problem: Problem) -> int:
    """How many actions grounding may make at most: for each action, the product of the
    numbers of objects its parameters' types admit."""
    per_type = Counter({**domain.constants, **problem.objects}.values())
    total = 0
    for action in domain.actions.values():
        count = 1
        for param in action.params:
            count *= sum(n for kind, n in per_type.items() if domain.is_subtype(kind, param.types))
        total += count
    return total
