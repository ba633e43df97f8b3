"""Output to a reader that may go away: ``script | head -1`` closes the pipe after one
line (``script 2>&1 | head -3``: stdout's and stderr's pipe), and a script's later
prints, progress lines and messages (and the interpreter's last flush) would raise
BrokenPipeError. :func:`pipe_safe_output` drops what is written to either stream after
that, so a script finishes its work and its files and exits quietly."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager


class _PipeSafe(io.TextIOBase):
    """``stream``, whose writes after its reader went away are dropped."""

    def __init__(self, stream):
        self._stream = stream
        self.reader_gone = False

    def write(self, text: str) -> int:
        if not self.reader_gone:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._gone()
        return len(text)

    def flush(self) -> None:
        if not self.reader_gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._gone()

    def _gone(self) -> None:
        """Point the file descriptor at /dev/null, so that nothing buffered for the
        closed pipe raises at exit."""
        self.reader_gone = True
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)
        except (OSError, ValueError, io.UnsupportedOperation):
            pass  # a stream with no descriptor (a test's capture) has nothing to flush

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


@contextmanager
def pipe_safe_output() -> Iterator[None]:
    """``sys.stdout`` and ``sys.stderr`` each drop their writes once their reader has
    gone, inside this block."""
    original = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _PipeSafe(original[0]), _PipeSafe(original[1])
    try:
        yield
    finally:
        sys.stdout, sys.stderr = original
