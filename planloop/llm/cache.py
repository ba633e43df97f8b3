"""A persistent response cache: SQLite, keyed by a hash of model, messages, tools and
parameters, so that rerunning a deterministic study costs no model calls."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sqlite3
import threading
from pathlib import Path

from .base import ChatResponse, ToolCall, Usage
from .sent import note_sent


class CachedModel:
    """Wraps a model; answers from the cache when the same request was made before.

    By default only requests sent at temperature 0 are cached (``always=True`` caches
    all): a model sent no temperature samples at its provider's default, as OpenAI's
    reasoning models and the PDDLego+ protocol's requests do, so each trial is its own
    sample. An answer from the cache counts as sent with the parameters of the request
    it answers (see :mod:`planloop.llm.sent`), when the wrapped model builds requests.
    Safe to share between threads.
    """

    def __init__(self, model, path="~/.cache/planloop/llm.sqlite", always: bool = False):
        self.model = model
        self.name = model.name
        self.always = always
        self.path = Path(path).expanduser()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False)
        with self._lock, self._db:
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS responses "
                "(key TEXT PRIMARY KEY, response TEXT NOT NULL)"
            )

    def __reduce__(self):
        """A copy in another process (a Ray worker) opens the file at ``path`` there."""
        return CachedModel, (self.model, self.path, self.always)

    def sent(self, params: dict) -> dict:
        """What the wrapped model sends for a call with ``params``: its own
        ``request(params)`` where it has one, else its ``params`` merged with them
        (a model without parameters counts as temperature 0)."""
        request = getattr(self.model, "request", None)
        if request is not None:
            return request(params)
        return {"temperature": 0, **getattr(self.model, "params", {}), **params}

    def request_record(self) -> dict | None:
        """The wrapped model's ``request_record()`` (None when it has none)."""
        record = getattr(self.model, "request_record", None)
        return record() if record is not None else None

    def key(self, messages, tools, params) -> str:
        text = json.dumps(
            {
                "model": self.name,
                "base_url": getattr(self.model, "base_url", None),
                "messages": messages,
                "tools": tools,
                "params": self.sent(params),
            },
            sort_keys=True,
            default=str,
        )
        return hashlib.sha256(text.encode()).hexdigest()

    def complete(
        self, messages: list[dict], tools: list[dict] | None = None, **params
    ) -> ChatResponse:
        if not self.always and self.sent(params).get("temperature") != 0:
            return self.model.complete(messages, tools, **params)
        key = self.key(messages, tools, params)
        with self._lock:
            row = self._db.execute(
                "SELECT response FROM responses WHERE key = ?", (key,)
            ).fetchone()
        if row is not None:
            if hasattr(self.model, "request"):
                note_sent(self.sent(params))
            return _load(row[0])
        response = self.model.complete(messages, tools, **params)
        if not self.always and self.sent(params).get("temperature") != 0:
            return response  # the model refused temperature 0 during the call: a sample
        key = self.key(messages, tools, params)  # a default the model refused is not sent
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO responses VALUES (?, ?)",
                (key, json.dumps(dataclasses.asdict(response))),
            )
        return response


def _load(text: str) -> ChatResponse:
    data = json.loads(text)
    usage = Usage(**data["usage"])  # an answer stored before reasoning tokens: 0
    return ChatResponse(
        data["text"],
        tuple(ToolCall(**c) for c in data["tool_calls"]),
        Usage(
            0,
            usage.prompt_tokens,
            usage.completion_tokens,
            0.0,
            1,
            reasoning_tokens=usage.reasoning_tokens,
        ),
        data["model"],
        cached=True,
    )
