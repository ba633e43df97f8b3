"""Episodes done out of a total, on stderr: a bar redrawn in place on a terminal, one
plain line per update elsewhere (a log file, a CI job); failed episodes said by kind.
Under :func:`one_line`, the studies of a run (a paper's reproduction) share one line:
each study's cell and the run's count, and the failures of all of them said at the end."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TextIO


def episodes(count: int) -> str:
    """``1 episode``, ``2 episodes``."""
    return f"{count:,} episode{'' if count == 1 else 's'}"


class FailureKinds:
    """The failed episodes of a run by kind (``error_kind``, else the word their error
    begins with), each kind's first with its example: a run where every episode fails
    says so in a line a kind, not a line an episode."""

    def __init__(self) -> None:
        self.count: dict[str, int] = {}
        self.example: dict[str, str] = {}

    def add(self, record: Mapping, line: str) -> str | None:
        """Count ``record``'s failure; ``line`` when it is the first of its kind."""
        kind = str(record.get("error_kind") or str(record.get("error")).split(":", 1)[0])[:40]
        self.count[kind] = self.count.get(kind, 0) + 1
        if kind in self.example:
            return None
        self.example[kind] = line[:300]
        return self.example[kind]

    def summary(self) -> list[str]:
        """One line a kind that failed more than once: its count and its first example."""
        return [
            f"{count} episodes failed with {kind}, e.g. {self.example[kind]}"
            for kind, count in self.count.items()
            if count > 1
        ]


class Progress:
    """``update(done, failed)`` after each episode; ``note(line)`` prints a line (a
    failure) without breaking the bar; ``close()`` ends the bar's line. ``live``
    (redraw in place) defaults to whether ``stream`` is a terminal. ``cell`` names what
    the episodes are (``pddlego on CoinCollector-v0 (num_locations=5), gpt-4o``);
    ``failures`` counts the failed ones by kind."""

    def __init__(
        self,
        total: int,
        done: int = 0,
        stream: TextIO | None = None,
        live: bool | None = None,
        width: int = 30,
        cell: str = "",
    ):
        self.total, self.width, self.cell = total, width, cell
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty() if live is None else live
        self.start = time.monotonic()
        self.failures = FailureKinds()
        self._shown = ""
        if self.live:
            self.update(done, 0)

    def status(self, done: int, failed: int) -> str:
        """``cell: 12/40 episodes, 1 failed, 34 s``."""
        head = f"{self.cell}: " if self.cell else ""
        return (
            f"{head}{done}/{self.total} episodes, {failed} failed, "
            f"{time.monotonic() - self.start:.0f} s"
        )

    def update(self, done: int, failed: int) -> None:
        if self.live:
            filled = self.width * done // max(1, self.total)
            self._shown = f"[{'#' * filled}{'.' * (self.width - filled)}] " + self.status(
                done, failed
            )
            self.stream.write(f"\r\033[K{self._shown}")
        else:
            self.stream.write(self.status(done, failed) + "\n")
        self.stream.flush()

    def note(self, line: str) -> None:
        if self.live:
            self.stream.write(f"\r\033[K{line}\n{self._shown}")
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def close(self) -> None:
        """End the bar's line and say the failures by kind."""
        if self.live:
            self.stream.write("\n")
            self.stream.flush()
        for line in self.failures.summary():
            print(line, file=self.stream, flush=True)


class RunProgress(Progress):
    """The one line of a run of several studies: each study's cell and episodes, and
    the run's (``study 3, pddlego on ALFWorld-v0 (...): 4/20 episodes; in all 44
    episodes, 2 failed, 31 s``). Off a terminal it writes a line as each study ends
    (not each tenth); its failures, counted over every study, are said by :meth:`end`."""

    def __init__(self, stream: TextIO | None = None, live: bool | None = None):
        super().__init__(0, 0, stream, live=False)  # nothing to draw before a study
        self.live = self.stream.isatty() if live is None else live
        self.studies = self.done = self.failed = 0
        self._study = (0, 0)  # the current study's done and failed, already counted

    def study(self, cell: str, total: int, done: int) -> RunProgress:
        """Show the next study's cell, ``done`` of its ``total`` episodes resumed."""
        self.studies += 1
        self.cell, self.total = f"study {self.studies}, {cell}", total
        self.done += done
        self._study = (done, 0)
        if self.live:
            self.update(done, 0)
        return self

    def status(self, done: int, failed: int) -> str:
        return (
            f"{self.cell}: {done}/{self.total} episodes; in all {episodes(self.done)}, "
            f"{self.failed} failed, {time.monotonic() - self.start:.0f} s"
        )

    def update(self, done: int, failed: int) -> None:
        self.done += done - self._study[0]
        self.failed += failed - self._study[1]
        self._study = (done, failed)
        if self.live or done == self.total:
            super().update(done, failed)

    def close(self) -> None:
        """A study ended: the line stays for the next one."""

    def end(self) -> None:
        """The run ended: end the line and say the failures by kind."""
        super().close()


_RUN: ContextVar[RunProgress | None] = ContextVar("planloop_run_progress", default=None)


@contextmanager
def one_line(stream: TextIO | None = None) -> Iterator[RunProgress]:
    """The studies run inside share one progress line (:class:`RunProgress`)."""
    run = RunProgress(stream)
    token = _RUN.set(run)
    try:
        yield run
    finally:
        _RUN.reset(token)
        run.end()


def progress_for(cell: str, total: int, done: int, stream: TextIO) -> Progress:
    """The progress of one study's episodes: the run's line under :func:`one_line`,
    else a line of its own."""
    run = _RUN.get()
    if run is not None:
        return run.study(cell, total, done)
    return Progress(total, done, stream, cell=cell)


def under_one_line() -> bool:
    """Whether the studies run now share :func:`one_line`'s line."""
    return _RUN.get() is not None
