"""Test doubles that ship with the package: a scripted model and a person at a terminal."""

from __future__ import annotations

import sys
import threading
import time
from typing import Callable

from .base import ChatResponse, ToolCall, Usage


class ScriptedModel:
    """Answers from a list (in order) or from a function of the messages.

    A reply may be a string, a ChatResponse, or an Exception to raise. ``delay``
    seconds are slept per call (to measure concurrency). ``calls`` counts calls and
    ``prompts`` keeps every message list received. Thread-safe.
    """

    def __init__(
        self,
        replies: list | Callable[[list[dict]], object],
        delay: float = 0.0,
        name: str = "scripted",
    ):
        self.replies = replies
        self.delay = delay
        self.name = name
        self.params: dict = {}
        self.prompts: list[list[dict]] = []
        self._lock = threading.Lock()

    def __reduce__(self):
        """A copy in another process (a Ray worker) starts its script from the top."""
        return ScriptedModel, (self.replies, self.delay, self.name)

    @property
    def calls(self) -> int:
        return len(self.prompts)

    def complete(
        self, messages: list[dict], tools: list[dict] | None = None, **params
    ) -> ChatResponse:
        with self._lock:
            index = len(self.prompts)
            self.prompts.append(messages)
        if self.delay:
            time.sleep(self.delay)
        if callable(self.replies):
            reply = self.replies(messages)
        elif index < len(self.replies):
            reply = self.replies[index]
        else:
            raise IndexError(
                f"the script has {len(self.replies)} replies; call {index + 1} asked for another"
            )
        if isinstance(reply, Exception):
            raise reply
        if isinstance(reply, ChatResponse):
            return reply
        if isinstance(reply, ToolCall):
            return ChatResponse("", (reply,), Usage(1, 0, 0, self.delay), self.name)
        words = sum(len(m.get("content") or "") for m in messages) // 4
        return ChatResponse(
            str(reply), (), Usage(1, words, len(str(reply)) // 4, self.delay), self.name
        )


class InteractiveModel:
    """Shows each prompt in the terminal and takes the reply from a person: debug a
    prompt by playing the model. A reply ends with a line holding only ``.``."""

    def __init__(self, stdin=None, stdout=None, name: str = "interactive"):
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self.name = name
        self.params: dict = {}

    def complete(
        self, messages: list[dict], tools: list[dict] | None = None, **params
    ) -> ChatResponse:
        start = time.monotonic()
        for message in messages:
            print(
                f"--- {message.get('role', '?')} ---\n{message.get('content') or ''}",
                file=self.stdout,
            )
        if tools:
            print("--- tools: " + ", ".join(t["function"]["name"] for t in tools), file=self.stdout)
        print("--- your reply (end with a line holding only '.') ---", file=self.stdout, flush=True)
        lines = []
        for line in self.stdin:
            if line.rstrip("\n") == ".":
                break
            lines.append(line.rstrip("\n"))
        return ChatResponse(
            "\n".join(lines), (), Usage(1, 0, 0, time.monotonic() - start), self.name
        )
