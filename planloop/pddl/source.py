"""What the reader accepts from callers: the one place that tells PDDL text from a path,
opens the files callers name, ends lines with ``\\n``, and holds the size limits on
untrusted input.

Where a caller's path leads and how its file is opened can be handed, for the current
context, to an :class:`Access` (:data:`ACCESS`): a server confines both to its roots so.
"""

from __future__ import annotations

import os
import stat
from contextvars import ContextVar
from dataclasses import dataclass, fields
from pathlib import Path
from typing import BinaryIO, Protocol

from ..errors import PlanloopError
from .diagnostics import Diagnostic, PDDLError, quote, received


@dataclass(frozen=True)
class Limits:
    """The most work the reader, the grounder, the plan checks and a contingent belief
    accept from one input; each refusal is a :class:`PDDLError` (a belief's, a ValueError)
    naming its field and how big the input or the work would be.

    Counted in bytes and work units, never seconds, so a refusal does not depend on the
    machine (but for the belief's wall-clock backstop, past any count). The defaults sit well above the largest IPC classical instances (files up to
    4 MB, 4,225 objects, 47,379 initial facts, 4,225 goal atoms, nesting 12 deep, type
    hierarchies 5 deep) and keep each input to a few seconds of work here; the depths also
    keep the recursive passes (grounding, writing) far from Python's recursion limit.
    Raise one with ``load(domain, problem, limits=Limits(max_objects=50_000))``.

    ==================== =========== ==========================================================
    field                default     the most...
    ==================== =========== ==========================================================
    max_bytes            8,000,000   bytes of a domain, problem or plan file (a str: characters)
    max_depth            100         parentheses nested in each other
    max_types            10,000      types a domain declares
    max_type_depth       100         types above a type (``a - b``, ``b - object``: a has 2)
    max_objects          20,000      a problem's objects, a domain's constants
    max_init_facts       200,000     entries of ``:init``, duplicates included
    max_goal_size        100,000     parenthesized conditions in ``:goal``, connectives included
    max_expansion        1,000,000   bindings grounding one task enumerates: each quantifier
                                     (``forall``, ``exists``) counts the product of its
                                     variables' objects before it expands, each conditional
                                     effect 1, each action parameter binding tried 1; and
                                     (counted before they expand) the bindings of cp2fsc's
                                     ``:variable`` values and defined facts
    max_ground_actions   400,000     actions grounded (about 0.7 KB and 12-20 us each here:
                                     a 400-block Blocksworld, 320,800 actions, loads in 4-6 s)
    max_ground_facts     250,000     facts a grounded task names (a state is their bitset)
    max_belief_work      1,000,000   work units of one query of a contingent belief (whether an
                                     action is known applicable, the admissible actions, the
                                     goal test, a step) or of its initial belief: each world or
                                     assignment tested, each literal of ``:init``'s clauses
                                     read, each value tried searching the assignments the
                                     clauses allow and each clause it updates, 16 machine
                                     words of listed assignments built, and for a formula
                                     each SAT call, conflict and clause added; a wall-clock
                                     backstop stops one at 30 us a unit (30 s here)
    ==================== =========== ==========================================================
    """

    max_bytes: int = 8_000_000
    max_depth: int = 100
    max_types: int = 10_000
    max_type_depth: int = 100
    max_objects: int = 20_000
    max_init_facts: int = 200_000
    max_goal_size: int = 100_000
    max_expansion: int = 1_000_000
    max_ground_actions: int = 400_000
    max_ground_facts: int = 250_000
    max_belief_work: int = 1_000_000

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(
                    f"Limits({f.name}=...) must be a positive int, received {received(value)}"
                )

    def exceeded(self, field: str, found: str) -> str:
        """The message for ``found`` (such as "1,048,576 facts") over the limit ``field``."""
        return (
            f"{found}, more than the limit of {getattr(self, field):,} ({field}); to accept "
            f"more, pass limits=Limits({field}=...) (to gym.make or an env, also "
            f"limits={{'{field}': ...}})"
        )

    def check(self, field: str, count: int, stage: str, what: str) -> None:
        """Raise :class:`PDDLError` when ``count`` ``what`` exceed the limit ``field``."""
        if count > getattr(self, field):
            raise PDDLError([Diagnostic(stage, self.exceeded(field, f"{count:,} {what}"))])


DEFAULT_LIMITS = Limits()  # every reader's default: one shared value (Limits is frozen)


class Access(Protocol):
    """Where a caller's path leads, and its file opened, as a server allows."""

    def locate(self, source: str | os.PathLike) -> Path | None:
        """The existing file or folder ``source`` names (None: nothing on disk), or an
        error saying it may not be named."""
        ...

    def open(self, path: str | os.PathLike) -> BinaryIO:
        """``path``'s regular file opened for reading, or an error saying why not."""
        ...


ACCESS: ContextVar[Access | None] = ContextVar("planloop_access", default=None)


class NotRegular(PlanloopError, OSError):
    """A path that names a folder, device or pipe where a file was to be read."""


def source_path(source: object) -> Path | None:
    """The existing file or folder ``source`` names (an ``os.PathLike``, or a str of one
    line), else None: PDDL text, prose, or nothing on disk. Under an :data:`ACCESS`, as
    it locates ``source``."""
    if isinstance(source, str) and ("\n" in source or not source.strip()):
        return None
    if not isinstance(source, (str, os.PathLike)):  # Path() would raise TypeError
        return None
    access = ACCESS.get()
    return existing_path(source) if access is None else access.locate(source)


def existing_path(source: str | os.PathLike) -> Path | None:
    """``source`` as a path if it names something on disk, else None."""
    try:
        path = Path(source)
        return path if path.exists() else None
    except (OSError, TypeError, ValueError):  # not a path, too long, a NUL byte...
        return None


def open_file(path: str | os.PathLike) -> BinaryIO:
    """``path``'s regular file opened for reading: the one way planloop opens a file a
    caller named (a domain, a problem, hidden worlds, a layout, a game). Under an
    :data:`ACCESS`, as it opens it; else see :func:`open_regular`."""
    access = ACCESS.get()
    return open_regular(path) if access is None else access.open(path)


def open_regular(path: str | os.PathLike) -> BinaryIO:
    """``path`` opened for reading if it is a regular file, checked on the opened file;
    anything else (a folder, or a device or pipe that may never end) is a
    :class:`NotRegular` error, found without waiting on it."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegular(0, "not a regular file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_text(path: str | os.PathLike) -> str:
    """The UTF-8 text of the file at ``path``, opened with :func:`open_file`."""
    with open_file(path) as file:
        return file.read().decode("utf-8")


def read_source(source: object, stage: str, limits: Limits) -> str:
    """The text of a ``stage`` (domain or problem) given as a path or as PDDL text."""
    if not isinstance(source, (str, os.PathLike)):
        raise PDDLError(
            [
                Diagnostic(
                    stage, f"expected PDDL text or a path to a file, received {received(source)}"
                )
            ]
        )
    path = source_path(source)
    if path is not None:
        text = _read_file(path, stage, limits)
    elif isinstance(source, os.PathLike):
        raise PDDLError([Diagnostic(stage, f"no such file: {quote(str(source), 200)}")])
    else:
        limits.check("max_bytes", len(source), stage, f"characters of {stage} text")
        text = source
    return unix_newlines(text)


def unix_newlines(text: str) -> str:
    """``text`` with every line ending (``\\r\\n``, ``\\r``) written ``\\n``."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _read_file(path: Path, stage: str, limits: Limits) -> str:
    name = quote(str(path), 200)
    try:
        with open_file(path) as file:
            size = os.fstat(file.fileno()).st_size
            limits.check("max_bytes", size, stage, f"bytes in the {stage} file {name}")
            data = file.read(limits.max_bytes + 1)
        limits.check("max_bytes", len(data), stage, f"bytes in the {stage} file {name}")
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise PDDLError([Diagnostic(stage, f"cannot read {name}: {reason}")]) from None
