"""Python's cyclic garbage collector paused while a task is read or grounded.

Reading and grounding allocate hundreds of thousands of small containers, none of them
garbage with cycles, and each few hundred allocations start a collection that, in a
long-running study holding its tasks and records, walks that whole heap again: about a
third of an ALFWorld PDDLego+ episode. Reference counting still frees everything as
usual; the work is bounded by :class:`~planloop.pddl.source.Limits`, and the collector
runs again as soon as the outermost pause ends (in any thread), unless it was off
before it.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_LOCK = threading.Lock()
_depth = 0  # pauses open, in every thread
_was_enabled = False  # the collector's state when the outermost pause began


@contextmanager
def collection_paused() -> Iterator[None]:
    """No cyclic garbage collection inside the block (nested and concurrent blocks end
    the pause when the last of them ends)."""
    global _depth, _was_enabled
    with _LOCK:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _LOCK:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()
