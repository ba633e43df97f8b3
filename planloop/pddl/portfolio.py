"""A race between the in-process search and a planner in a background thread.

The in-process search runs in the calling thread and checks :meth:`Race.check` at
each state it expands. The other planner (Fast Downward, which spends 0.1 s or more
starting up) starts only once the in-process search has run alone for a while, or at
once with :meth:`Race.launch`; it then runs on another core, since it is a
subprocess. The first definitive answer (solved or unsolvable) wins and the loser
is stopped: the search by :class:`~planloop.pddl.search.SearchTimeout` from
``check``, the planner through the event it was given (its process is killed).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from .grounding import GroundAction
from .heuristics import RelaxedTask
from .search import SearchTimeout

DEFINITIVE = ("solved", "unsolvable")


class Background:
    """``run(stop)`` in a daemon thread; ``stop`` is set to ask it to end early."""

    def __init__(self, run: Callable[[threading.Event], object]):
        self.stop = threading.Event()
        self.result = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._main, args=(run,), daemon=True)
        self._thread.start()

    def _main(self, run) -> None:
        try:
            self.result = run(self.stop)
        except BaseException as exc:  # handed to the caller by wait()
            self._error = exc

    @property
    def done(self) -> bool:
        return not self._thread.is_alive()

    def wait(self):
        """The result, once ``run`` has returned (re-raising what it raised)."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self.result

    def cancel(self) -> None:
        """Ask ``run`` to stop and wait until it has."""
        self.stop.set()
        self._thread.join()


class Race:
    """The in-process search (this thread) against ``other`` (a background thread).

    ``other(stop)`` starts ``alone`` seconds after ``start``, or at :meth:`launch`. The
    search may run until ``budget`` seconds after ``start`` while ``other`` runs, and on
    until ``timeout`` once ``other`` has failed (ended without a definitive answer). Use
    it as a context manager: leaving it stops ``other`` if it still runs.
    """

    def __init__(
        self, other: Callable[[threading.Event], object], start: float, alone: float, budget: float
    ):
        self._other = other
        self._launch_at = start + alone
        self._budget_end = start + budget
        self.rival: Background | None = None

    def __enter__(self) -> Race:
        return self

    def __exit__(self, *exc) -> None:
        if self.rival is not None:
            self.rival.cancel()

    def launch(self) -> Background:
        """Start ``other`` now (once)."""
        if self.rival is None:
            self.rival = Background(self._other)
        return self.rival

    def rival_won(self) -> bool:
        return (
            self.rival is not None
            and self.rival.done
            and self.rival.result is not None
            and self.rival.result.status in DEFINITIVE
        )

    def rival_failed(self) -> bool:
        return self.rival is not None and self.rival.done and not self.rival_won()

    def check(self) -> None:
        """Start ``other`` when due; raise SearchTimeout when the search should stop (the
        rival answered, or the search's budget is spent while the rival still runs)."""
        now = time.monotonic()
        if self.rival is None and now >= self._launch_at:
            self.launch()
        if self.rival_won() or (now >= self._budget_end and not self.rival_failed()):
            raise SearchTimeout()


class Checked:
    """A :class:`RelaxedTask` whose every evaluation first calls ``check`` (which may
    raise SearchTimeout): greedy best-first search evaluates each state it expands."""

    def __init__(self, relaxed: RelaxedTask, check: Callable[[], None]):
        self._relaxed = relaxed
        self._check = check

    def relaxed_plan(self, state: int) -> list[GroundAction] | None:
        self._check()
        return self._relaxed.relaxed_plan(state)
