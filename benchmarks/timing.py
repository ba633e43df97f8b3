"""The benchmarks' one timing harness: how long a call takes, repeated, each repetition
optionally prepared untimed (caches forgotten) and timed with the garbage collector off.
Benchmarks run as scripts from this folder import it as ``timing``."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def timed(
    call: Callable[[], T],
    repeat: int = 1,
    *,
    before: Callable[[], object] | None = None,
    gc_off: bool = False,
) -> tuple[list[float], T]:
    """The seconds each of ``repeat`` calls took and the last call's result; ``before``
    runs untimed ahead of each call (e.g. forgetting caches, for cold timings),
    ``gc_off`` keeps the garbage collector from running inside the timed part."""
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, not {repeat}")
    times: list[float] = []
    was_enabled = gc.isenabled()
    try:
        for _ in range(repeat):
            if before is not None:
                before()
            if gc_off:
                gc.disable()
            start = time.perf_counter()
            result = call()
            times.append(time.perf_counter() - start)
            if gc_off and was_enabled:
                gc.enable()
    finally:
        if was_enabled:
            gc.enable()
    return times, result


def best(call: Callable[[], object], repeat: int, **options) -> float:
    """The fastest of ``repeat`` calls, in seconds (``options``: :func:`timed`'s)."""
    return min(timed(call, repeat, **options)[0])
