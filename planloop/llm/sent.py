"""What the requests of a stretch of work (a study's episode) carried, read from the
requests themselves: inside ``recording()``, every request a model sends from this
thread (each attempt, a refused one included) and every answer a cache gives in place
of one has its parameters noted in the block's :class:`SentLog`. Calls outside any
such block (a study's model check) are noted nowhere."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypedDict

MAX_SETS = 16  # distinct parameter sets a log keeps; requests with a further one are counted

_LOG: ContextVar[SentLog | None] = ContextVar("planloop_llm_sent", default=None)


class SentRecord(TypedDict):
    """What a :class:`SentLog` says: ``sent_sets``, the distinct parameter sets the
    requests carried, in the order first sent (at most :data:`MAX_SETS`), and
    ``unlisted_requests``, how many requests carried a set not kept."""

    sent_sets: list[dict[str, object]]
    unlisted_requests: int


class SentLog:
    """The distinct parameter sets requests carried; bounded, and safe to share between
    threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sets: list[dict[str, object]] = []
        self._unlisted = 0

    def add(self, params: Mapping[str, object]) -> None:
        """Note one request's parameters."""
        sent = dict(params)
        with self._lock:
            if sent in self._sets:
                return
            if len(self._sets) < MAX_SETS:
                self._sets.append(sent)
            else:
                self._unlisted += 1

    def record(self) -> SentRecord:
        with self._lock:
            return {
                "sent_sets": [dict(s) for s in self._sets],
                "unlisted_requests": self._unlisted,
            }


@contextmanager
def recording() -> Iterator[SentLog]:
    """A new log of what the requests sent from this block carry (it replaces an
    enclosing block's log until it ends)."""
    log = SentLog()
    token = _LOG.set(log)
    try:
        yield log
    finally:
        _LOG.reset(token)


def note_sent(params: Mapping[str, object]) -> None:
    """Note a request's parameters in the log of the ``recording()`` block around this
    call, if any."""
    log = _LOG.get()
    if log is not None:
        log.add(params)
