"""Cooperative deadlines: long loops (grounding, search) call a check now and then,
which raises :class:`SearchTimeout` once their time is spent."""

from __future__ import annotations

import time
from collections.abc import Callable

from ..errors import PlanloopError

Check = Callable[[], None]


class SearchTimeout(PlanloopError):
    """The work ran out of time."""


def deadline_check(deadline: float | None) -> Check | None:
    """A check raising SearchTimeout once ``time.monotonic()`` passes ``deadline``."""
    if deadline is None:
        return None

    def check() -> None:
        if time.monotonic() > deadline:
            raise SearchTimeout()

    return check


def both(*checks: Check | None) -> Check | None:
    """A check running each of ``checks`` (None ones left out)."""
    present = [c for c in checks if c is not None]
    if len(present) < 2:
        return present[0] if present else None

    def check() -> None:
        for c in present:
            c()

    return check
