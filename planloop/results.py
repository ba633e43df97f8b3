"""Results as JSON lines: one record per episode, appended and synced to disk as it ends,
keyed by a hash of the run's configuration so that an interrupted run resumes.

A process killed at any moment (SIGKILL included) leaves at most a torn last line: each
record is one ``write`` of a complete line to a file opened with ``O_APPEND``, and a
torn line is set aside when the file is next opened, so that its episode runs again.
So is any line that is not a valid record (damage from an editor, a tool, a hostile
hand): never fatal, reported with its line number. A path that cannot hold records (a
folder, a device, a file that cannot be read) is a :class:`ResultsError`."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypedDict

import numpy as np

from .errors import PlanloopError
from .schema import schema_problem

Record = dict[str, Any]  # one episode's record: a line of a results file, read back


class _Keyed(TypedDict):
    key: str


def config_hash(config: dict) -> str:
    """A short, stable hash of a JSON-serializable configuration."""
    text = json.dumps(config, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


MAX_RECORD_DEPTH = 100  # arrays and objects a line of a results file may nest (records: 8)


class RecordFields(_Keyed, total=False):
    """The schema of every record (see :mod:`planloop.schema`): a ``key``; ``won`` true
    or false and ``error`` text or null when present."""

    won: bool
    error: str | None


def record_problem(record: object, schema: type = RecordFields) -> str | None:
    """Why ``record`` is not a valid record of ``schema`` (None when it is): it must be a
    JSON object with a non-empty string ``key`` whose fields fit ``schema``
    (:class:`RecordFields` or a TypedDict extending it)."""
    if not isinstance(record, dict):
        return "not a JSON object"
    if not isinstance(record.get("key"), str) or not record["key"]:
        return "no key"
    return schema_problem(record, schema)


def too_deep(line: bytes, limit: int = MAX_RECORD_DEPTH) -> bool:
    """Whether arrays and objects nest more than ``limit`` deep in the JSON text ``line``,
    found without parsing it (brackets inside strings do not count), a MiB at a time in
    numpy: linear in its length whatever it holds (8 MB of brackets: 0.45 s here)."""
    if line.count(b"[") + line.count(b"{") <= limit:
        return False  # too few to nest deeper
    # with escaped backslashes and quotes gone, every quote left opens or closes a string
    text = np.frombuffer(line.replace(b"\\\\", b"").replace(b'\\"', b""), np.uint8)
    level, quotes = 0, 0
    for start in range(0, len(text), _PIECE):
        piece = text[start : start + _PIECE]
        quote = piece == ord('"')
        outside = (np.cumsum(quote, dtype=np.int64) + quotes) % 2 == 0
        steps = (((piece == ord("[")) | (piece == ord("{"))) & outside).astype(np.int32) - (
            ((piece == ord("]")) | (piece == ord("}"))) & outside
        )
        levels = np.cumsum(steps, dtype=np.int64) + level
        if levels.max() > limit:
            return True
        level, quotes = int(levels[-1]), quotes + int(quote.sum())
    return False


_PIECE = 2**20  # bytes of a line too_deep looks at at once


def parse_record(line: bytes) -> tuple[object, str | None]:
    """The JSON value of a line of a results file, or (None, why it is not JSON); a line
    nested more than :data:`MAX_RECORD_DEPTH` deep is not parsed."""
    if too_deep(line):
        return None, f"nested more than {MAX_RECORD_DEPTH} deep (MAX_RECORD_DEPTH)"
    try:
        return json.loads(line), None
    except ValueError:  # JSONDecodeError, bytes that are not UTF-8, an int too long
        return None, "not JSON"


class ResultsError(PlanloopError, ValueError):
    """A results path that cannot hold records, said in one line."""


class ResultsFile:
    """Append-only episode records; ``done`` holds the keys already recorded.
    Appending is safe from many threads. ``problem(record)`` says why a line read is
    not a valid record (default :func:`record_problem`); such lines are set aside in
    :attr:`torn_path` and listed in ``set_aside`` as (line number, reason). A path that
    is not a regular file, or that cannot be created or read, is a :class:`ResultsError`."""

    def __init__(self, path, problem: Callable[[object], str | None] = record_problem):
        self.path = Path(path)
        self.problem = problem
        self.set_aside: list[tuple[int, str]] = []
        if self.path.exists() and not self.path.is_file():
            kind = "a folder" if self.path.is_dir() else "not a regular file"
            raise ResultsError(f"results file {self.path} is {kind}: move it away")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.records: list[dict] = self._read() if self.path.exists() else []
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            raise ResultsError(
                f"cannot use results file {self.path} ({where}{exc.strerror or exc})"
            ) from None
        self.done = {r.get("key") for r in self.records}
        self._lock = threading.Lock()
        self._closed = False

    @property
    def torn_path(self) -> Path:
        """Where lines that are not records (a run killed mid-write) are moved."""
        return self.path.with_name(self.path.name + ".torn")

    def damage_report(self) -> str:
        """One line on the lines set aside (empty when none were)."""
        if not self.set_aside:
            return ""
        shown = "; ".join(f"line {number}: {reason}" for number, reason in self.set_aside[:3])
        more = f"; and {len(self.set_aside) - 3} more" if len(self.set_aside) > 3 else ""
        return (
            f"{len(self.set_aside)} lines of {self.path.name} were not valid records and "
            f"were set aside in {self.torn_path.name} ({shown}{more}); their episodes "
            f"run again"
        )

    def _read(self) -> list[dict]:
        """The records in the file. Lines that are not valid records (a torn last line,
        from a run killed mid-write, or damage) are appended to :attr:`torn_path` and the
        file is rewritten without them, so that every line of a results file is a valid
        record for any reader; their episodes run again."""
        data = self.path.read_bytes()
        records: list[dict] = []
        kept: list[bytes] = []
        torn: list[bytes] = []
        reason: str | None
        for number, line in enumerate(data.splitlines(), 1):
            if not line.strip():
                continue
            record, reason = parse_record(line)
            if reason is None:
                reason = self.problem(record)
            if reason is None and isinstance(record, dict):
                records.append(record)
                kept.append(line + b"\n")
            else:
                torn.append(line + b"\n")
                self.set_aside.append((number, reason or "not a JSON object"))
        if torn:
            with self.torn_path.open("ab") as aside:
                aside.writelines(torn)
        if torn or not data.endswith(b"\n") and data:
            staged = self.path.with_name(self.path.name + ".tmp")
            _write_synced(staged, b"".join(kept), os.O_TRUNC)
            os.replace(staged, self.path)
        return records

    def append(self, record: dict) -> None:
        """Write ``record`` (which must carry a ``key``) as one line and sync it to disk
        (lone surrogates in its text are written as JSON escapes)."""
        line = (json.dumps(record, default=str) + "\n").encode()
        with self._lock:
            if self._closed:
                return
            _write_synced(self.path, line, os.O_APPEND)
            self.records.append(record)
            self.done.add(record["key"])

    def close(self) -> None:
        """Let the record being written end, then take no more (an interrupted run)."""
        with self._lock:
            self._closed = True


def _write_synced(path: Path, data: bytes, mode: int) -> None:
    """Write ``data`` to ``path`` (created if missing) and fsync it. One ``write`` call
    carries it all unless the kernel writes less (then the rest follows)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | mode, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)
