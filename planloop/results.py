"""Results as JSON lines: one record per episode, appended and flushed as it ends,
keyed by a hash of the run's configuration so that an interrupted run resumes."""

from __future__ import annotations

import hashlib
import json
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
        self.records: list[dict] = []
        if self.path.exists():
            if not self.path.read_bytes().endswith(b"\n") and self.path.stat().st_size:
                with self.path.open("a") as out:  # end a torn last line before appending
                    out.write("\n")
            for line in self.path.read_text().splitlines():
                if not line.strip():
                    continue
                try:
                    self.records.append(json.loads(line))
                except json.JSONDecodeError:
                    # A run killed mid-write leaves at most a torn last line; redo it.
                    continue
        self.done = {r.get("key") for r in self.records}
        self._lock = threading.Lock()

    def append(self, record: dict) -> None:
        """Write ``record`` (which must carry a ``key``) and flush it to disk."""
        line = json.dumps(record, default=str) + "\n"
        with self._lock:
            with self.path.open("a") as out:
                out.write(line)
                out.flush()
            self.records.append(record)
            self.done.add(record["key"])
