"""Results as JSON lines: one record per episode, appended and flushed as it ends,
keyed by a hash of the run's configuration so that an interrupted run resumes."""

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
            staged.write_bytes(b"".join(kept))
            os.replace(staged, self.path)
        return records

    def append(self, record: dict) -> None:
        """Write ``record`` (which must carry a ``key``) and flush it to disk."""
        line = json.dumps(record, default=str) + "\n"
        with self._lock:
            with self.path.open("a") as out:
                out.write(line)
                out.flush()
            self.records.append(record)
            self.done.add(record["key"])
