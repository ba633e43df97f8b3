"""What was read from PDDL text, kept for the next reading of the same text: a bounded,
thread-safe LRU keyed by the text's hash and the reading's options. Domains and problems
are immutable, so every caller can share them."""

from __future__ import annotations

import hashlib
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

T = TypeVar("T")
SIZE = 64  # readings kept; an ALFWorld domain is about 0.5 MB parsed


def text_key(source: object) -> str | None:
    """The hash of ``source`` when it is PDDL text (a path, or anything else: None)."""
    if isinstance(source, str) and "(" in source:
        return hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()
    return None


_EVERY: weakref.WeakSet[Memo] = weakref.WeakSet()


def clear_all() -> None:
    """Forget everything every memo keeps (a benchmark timing cold reads, say)."""
    for memo in list(_EVERY):
        memo.clear()


class Memo(Generic[T]):
    """``get(key, read)``: the value kept for ``key``, else ``read()``, kept (at most
    ``size`` values, the least recently used dropped first). A ``read`` that raises keeps
    nothing; None is never a value (:meth:`find` answers None for a key not kept).
    :func:`clear_all` clears every memo."""

    def __init__(self, size: int = SIZE):
        self.size, self.hits, self.misses = size, 0, 0
        self._values: OrderedDict[Hashable, T] = OrderedDict()
        self._lock = threading.Lock()
        _EVERY.add(self)

    def get(self, key: Hashable, read: Callable[[], T]) -> T:
        found = self.find(key)
        if found is not None:
            return found
        value = read()
        self.keep(key, value)
        return value

    def find(self, key: Hashable) -> T | None:
        """The value kept for ``key`` (now the most recently used), or None."""
        with self._lock:
            if key not in self._values:
                self.misses += 1
                return None
            self._values.move_to_end(key)
            self.hits += 1
            return self._values[key]

    def keep(self, key: Hashable, value: T) -> None:
        """Keep ``value`` for ``key``, dropping the least recently used past ``size``."""
        with self._lock:
            self._values[key] = value
            self._values.move_to_end(key)
            while len(self._values) > self.size:
                self._values.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._values.clear()
            self.hits = self.misses = 0
