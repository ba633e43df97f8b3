"""Results as JSON lines: one record per episode, appended and synced to disk as it ends,
keyed by a hash of the run's configuration so that an interrupted run resumes.

A process killed at any moment (SIGKILL included) leaves at most a torn last line: each
record is one ``write`` of a complete line to a file opened with ``O_APPEND``, and a
torn line is set aside when the file is next opened, so that its episode runs again."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path


def config_hash(config: dict) -> str:
    """A short, stable hash of a JSON-serializable configuration."""
    text = json.dumps(config, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class ResultsFile:
    """Append-only episode records; ``done`` holds the keys already recorded.
    Appending is safe from many threads."""

    def __init__(self, path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.records: list[dict] = self._read() if self.path.exists() else []
        self.done = {r.get("key") for r in self.records}
        self._lock = threading.Lock()

    @property
    def torn_path(self) -> Path:
        """Where lines that are not records (a run killed mid-write) are moved."""
        return self.path.with_name(self.path.name + ".torn")

    def _read(self) -> list[dict]:
        """The records in the file. Lines that are not JSON objects (at most a torn
        last line, from a run killed mid-write, whose episode runs again) are appended
        to :attr:`torn_path` and the file is rewritten without them, so that every
        line of a results file is a valid record for any reader."""
        data = self.path.read_bytes()
        records, kept, torn = [], [], []
        for line in data.splitlines():
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError:  # JSONDecodeError, or bytes that are not UTF-8
                record = None
            if isinstance(record, dict):
                records.append(record)
                kept.append(line + b"\n")
            else:
                torn.append(line + b"\n")
        if torn:
            with self.torn_path.open("ab") as aside:
                aside.writelines(torn)
        if torn or not data.endswith(b"\n") and data:
            staged = self.path.with_name(self.path.name + ".tmp")
            _write_synced(staged, b"".join(kept), os.O_TRUNC)
            os.replace(staged, self.path)
        return records

    def append(self, record: dict) -> None:
        """Write ``record`` (which must carry a ``key``) as one line and sync it to disk."""
        line = (json.dumps(record, default=str) + "\n").encode()
        with self._lock:
            _write_synced(self.path, line, os.O_APPEND)
            self.records.append(record)
            self.done.add(record["key"])


def _write_synced(path: Path, data: bytes, mode: int) -> None:
    """Write ``data`` to ``path`` (created if missing) and fsync it. One ``write`` call
    carries it all unless the kernel writes less (then the rest follows)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | mode, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)
