"""Episodes done out of a total, on stderr: a bar redrawn in place on a terminal, one
plain line per update elsewhere (a log file, a CI job)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


def episodes(count: int) -> str:
    """``1 episode``, ``2 episodes``."""
    return f"{count:,} episode{'' if count == 1 else 's'}"


class Progress:
    """``update(done, failed)`` after each episode; ``note(line)`` prints a line (a
    failure) without breaking the bar; ``close()`` ends the bar's line. ``live``
    (redraw in place) defaults to whether ``stream`` is a terminal."""

    def __init__(
        self,
        total: int,
        done: int = 0,
        stream: TextIO | None = None,
        live: bool | None = None,
        width: int = 30,
    ):
        self.total, self.width = total, width
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty() if live is None else live
        self.start = time.monotonic()
        self._shown = ""
        if self.live:
            self.update(done, 0)

    def status(self, done: int, failed: int) -> str:
        """``12/40 episodes, 1 failed, 34 s``."""
        return (
            f"{done}/{self.total} episodes, {failed} failed, {time.monotonic() - self.start:.0f} s"
        )

    def update(self, done: int, failed: int) -> None:
        if self.live:
            filled = self.width * done // max(1, self.total)
            self._shown = f"[{'#' * filled}{'.' * (self.width - filled)}] " + self.status(
                done, failed
            )
            self.stream.write(f"\r{self._shown}")
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
        if self.live:
            self.stream.write("\n")
            self.stream.flush()
