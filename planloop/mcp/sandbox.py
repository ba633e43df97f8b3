"""What planloop-mcp takes from its clients: PDDL as text, files only under the roots the
server was started with, sizes within a limit, and errors that echo little of either.

Text is anything with a ``(`` in it; anything else is a path, refused unless it
resolves (symlinks followed) under a root. No list says which arguments are paths: an
environment asks where every path it is handed leads, and opens every file it reads,
through :mod:`planloop.pddl.source`, which a :class:`Guard` answers for one session's
calls (see :meth:`Sandbox.guard`): a string the client sent, in any argument or option,
leads under a root (a relative one from the first) or nowhere; a file under a root, or
under a path the client named, is opened and then checked where the opened file really
is, so a link swapped in between wins nothing; any other file opened or folder listed
there is checked as it is opened. An error quotes at most :data:`EXCERPT` characters of
what the client sent, and of a file read from a root only where the fault is (line and
column), never its lines.
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from ..errors import PlanloopError
from ..pddl import Domain, PDDLError, Problem, quote
from ..pddl.source import ACCESS, NotRegular, existing_path, open_regular

EXCERPT = 80  # the most of a client's input an error quotes
MAX_BYTES = 1_000_000  # the largest domain or problem, as text or as a file
MAX_DEPTH = 64  # arrays and objects nested in a message, the message itself counted
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
            self.check_size(value, f"the {stage} text")
            return Source(value if "\n" in value else value + "\n")  # never read as a path
        path = self.path(value, stage)
        try:
            with self.open(path, f"the {stage} {excerpt(value)}") as file:
                data = file.read(self.max_bytes + 1)
        except FileNotFoundError:
            raise SandboxError(f"no such file: the {stage} {excerpt(value)}") from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise SandboxError(f"the {stage} file {excerpt(value)} is not UTF-8 text") from None
        return Source(text + "\n", path)

    def check_size(self, text: str, what: str) -> None:
        """A SandboxError if ``text`` (``what``) is longer than ``max_bytes``."""
        if len(text) > self.max_bytes:
            raise SandboxError(
                f"{what} has {len(text):,} characters, more than "
                f"the limit of {self.max_bytes:,} (--max-bytes)"
            )

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
            path = (self.roots[0] / Path(value).expanduser()).resolve()
            inside = self.inside(path)
            if inside and path.exists():
                return path
        except (OSError, RuntimeError, ValueError):  # a loop of links, a NUL byte...
            inside = False
        if not inside:
            raise SandboxError(f"the {stage} path {excerpt(value)} is outside the allowed roots")
        raise SandboxError(f"no such file: the {stage} {excerpt(value)}")

    def inside(self, path: Path) -> bool:
        """Whether ``path`` (absolute) lies under a root."""
        return any(path.is_relative_to(root) for root in self.roots)

    def open(self, path: Path, what: str) -> BinaryIO:
        """The regular file ``path`` (``what``, in errors) opened, once the opened file is
        seen to be under a root and of at most ``max_bytes``: where the open really led,
        not where the path led when checked."""
        token = _OPENING.set(True)  # checked below, on the opened file
        try:
            file = open_regular(path)
        except NotRegular:
            raise SandboxError(f"{what} is not a regular file") from None
        except OSError as exc:
            if isinstance(exc, FileNotFoundError):
                raise
            raise SandboxError(f"{what} cannot be read ({exc.strerror})") from None
        finally:
            _OPENING.reset(token)
        try:
            real = opened_path(file)
            if real is None or not self.inside(real):
                raise SandboxError(f"{what} is outside the allowed roots")
            if os.fstat(file.fileno()).st_size > self.max_bytes:
                raise SandboxError(f"{what} has more than {self.max_bytes:,} bytes (--max-bytes)")
        except BaseException:
            file.close()
            raise
        return file

    def guard(self, *sent: Mapping) -> Guard:
        """The guard of a session whose client sent the arguments and options ``sent``
        (a SandboxError if a string in them is longer than ``max_bytes``)."""
        strings = dict(_strings(sent))
        for text, key in strings.items():
            self.check_size(text, f"a string of {key}")
        return Guard(self, {text: key for text, key in strings.items() if len(text) <= _PATH_MAX})


def opened_path(file: BinaryIO) -> Path | None:
    """Where the opened ``file`` is, as the kernel says (None: it cannot say)."""
    try:
        return Path(os.readlink(f"/proc/self/fd/{file.fileno()}"))
    except OSError:  # no /proc: refused, never guessed
        return None


def _strings(sent: tuple[Mapping, ...]) -> Iterator[tuple[str, str]]:
    """Every string in the mappings ``sent`` (in their values' lists, tuples and dicts,
    keys included) but blank ones, with the key of ``sent`` it is under."""
    pending: list[tuple[object, str]] = [
        (value, str(key)) for mapping in sent for key, value in mapping.items()
    ]
    while pending:
        item, key = pending.pop()
        if isinstance(item, str):
            if item.strip():
                yield item, key
        elif isinstance(item, Mapping):
            pending.extend((child, key) for pair in item.items() for child in pair)
        elif isinstance(item, (list, tuple)):
            pending.extend((child, key) for child in item)


_PATH_MAX = 4096  # a longer string names no file (the system refuses it)


def _written(text: str) -> str:
    """The path ``text`` writes, normalized, ``~`` expanded."""
    return os.path.normpath(os.path.expanduser(text))


def _absolute(path: Path) -> Path | None:
    """``path`` made absolute from the working folder (None: it cannot name a file)."""
    try:
        return Path(os.path.abspath(path))
    except (OSError, ValueError):  # a NUL byte...
        return None


@dataclass
class Guard:
    """What one session's calls may read (a :class:`~planloop.pddl.source.Access`):
    under a root, and nothing else of the paths the ``sent`` strings name (each with the
    argument it was sent in). ``located``: the arguments that led to a file or folder."""

    sandbox: Sandbox
    sent: dict[str, str]
    located: set[str] = field(default_factory=set)

    @functools.cached_property
    def _written(self) -> dict[str, str]:
        """The sent strings by the path each writes (normalized, ``~`` expanded)."""
        written: dict[str, str] = {}
        for text in self.sent:
            written.setdefault(_written(text), text)
        return written

    @functools.cached_property
    def _named(self) -> frozenset[str]:
        """The absolute paths the sent strings name (a relative one from the first
        root), as written: where one leads is checked as it is located."""
        base = str(self.sandbox.roots[0]) if self.sandbox.roots else os.getcwd()
        return frozenset(os.path.normpath(os.path.join(base, path)) for path in self._written)

    def _claimed(self, path: str | os.PathLike) -> bool:
        """Whether ``path`` (absolute) is, or is under, a path a sent string names."""
        text, parent = os.path.normpath(path), ""
        while text != parent:
            if text in self._named:
                return True
            text, parent = os.path.dirname(text), text
        return False

    def _sent(self, source: str | os.PathLike) -> str | None:
        """The sent string ``source`` is (its path written any way), else None."""
        text = os.fspath(source)
        if not isinstance(text, str):
            return None
        return text if text in self.sent else self._written.get(_written(text))

    def locate(self, source: str | os.PathLike) -> Path | None:
        """Where ``source`` leads: a sent string (not text: no ``(``) under a root, from
        the first (an error outside them, or with no root); anything else as it names."""
        sent = self._sent(source)
        if sent is None:
            return existing_path(source)
        if "(" in sent:  # text, never a path
            return None
        try:
            path = self.sandbox.path(sent, self.sent[sent])
        except SandboxError as exc:
            if str(exc).startswith("no such file"):
                return None
            raise
        self.located.add(self.sent[sent])
        return path

    def open(self, path: str | os.PathLike) -> BinaryIO:
        """``path`` opened: under a root, checked on the opened file (see
        :meth:`Sandbox.open`); elsewhere under a sent string's path, refused unopened;
        else the environment's own file."""
        sent = self._sent(path)
        target = Path(path) if sent is None else self.sandbox.path(sent, self.sent[sent])
        where = _absolute(target)
        root = next((r for r in self.sandbox.roots if where and where.is_relative_to(r)), None)
        if root is not None and where is not None:
            return self.sandbox.open(where, f"the file {excerpt(os.path.relpath(where, root))}")
        if where is not None and self._claimed(where):
            raise SandboxError(f"the file {excerpt(where)} is outside the allowed roots")
        return open_regular(path)

    @contextmanager
    def __call__(self) -> Iterator[None]:
        """Until the block ends, in this context: paths located and files opened as this
        guard says, and every file opened and folder listed under a root or a sent
        string's path checked as it is opened (see :meth:`check_opened`)."""
        _install_hook()
        guard, access = _GUARD.set(self), ACCESS.set(self)
        try:
            yield
        finally:
            ACCESS.reset(access)
            _GUARD.reset(guard)

    def check_opened(self, name: str | bytes | os.PathLike, opening: bool) -> None:
        """A SandboxError if ``name`` is under a sent string's path and outside every
        root, or lies under a root and resolves outside every root, is neither a regular
        file nor a folder, or is a file (``opening``) of more than ``max_bytes``; any
        other path is the environment's own."""
        given = os.fsdecode(name)
        given = given if os.path.isabs(given) else os.path.join(os.getcwd(), given)
        lexical = os.path.normpath(given)
        roots = self.sandbox.roots
        root = next(
            (r for r in roots if Path(given).is_relative_to(r) or Path(lexical).is_relative_to(r)),
            None,
        )
        kind = "file" if opening else "folder"
        if root is None:
            if self._claimed(lexical):
                raise SandboxError(f"the {kind} {excerpt(lexical)} is outside the allowed roots")
            return
        what = f"the {kind} {excerpt(os.path.relpath(lexical, root))}"
        try:
            real = Path(given).resolve()
            found = real.stat() if self.sandbox.inside(real) else None
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
        if opening and found.st_size > self.sandbox.max_bytes:
            raise SandboxError(
                f"{what} has more than {self.sandbox.max_bytes:,} bytes (--max-bytes)"
            )


_GUARD: ContextVar[Guard | None] = ContextVar("planloop_mcp_guard", default=None)
_OPENING: ContextVar[bool] = ContextVar("planloop_mcp_opening", default=False)


def _audit(event: str, args: tuple) -> None:
    """The audit hook: a file opened or a folder listed under a guard is checked, but
    for the guard's own opens (checked on the opened file)."""
    if event in _FILE_EVENTS and args and isinstance(args[0], (str, bytes, os.PathLike)):
        guard = _GUARD.get()
        if guard is not None and not _OPENING.get():
            guard.check_opened(args[0], event == "open")


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
    for name, flag in FLAGS.items():
        over = over.replace(f"({name})", f"({name}, {flag})")
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
