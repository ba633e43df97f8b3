"""How a study fails: ``StudyError`` for a mistake the researcher can fix (a flag, a
model that cannot answer), printed as one line by ``study_main``; anything else is a
bug and keeps its traceback."""

from __future__ import annotations

import functools
import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

from ..errors import PlanloopError
from ..pipes import pipe_safe_output
from ..results import ResultsError

EXIT_ERROR, EXIT_INTERRUPTED, EXIT_TERMINATED = 2, 130, 143


class StudyError(PlanloopError):
    """A study cannot run, for a reason said in one line."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (``code`` 130) or SIGTERM (143) during a study; ``saved`` is (episodes
    recorded, episodes scheduled) once the runner knows them."""

    def __init__(self, code: int = EXIT_INTERRUPTED, saved: tuple[int, int] | None = None):
        super().__init__(code)
        self.code, self.saved = code, saved


class Ended(Exception):
    """A study run from another script's ``main`` (``reproduce.py``) ended with ``code``
    (2, 130, 143) after saying why itself: the caller ends with the same code and says
    nothing more."""

    def __init__(self, code: int):
        super().__init__(code)
        self.code = code


def one_line(text: object) -> str:
    """``text`` with every run of whitespace (newlines too) made one space."""
    return " ".join(str(text).split())


def study_main(main: Callable[..., int], prog: str | None = None) -> Callable[..., int]:
    """Decorates a script's ``main``: a StudyError (or a results file's ResultsError)
    prints ``script.py: error: <one line>`` on stderr and returns 2; :class:`Ended` (a
    study that said why it stopped) returns its code. Ctrl-C and SIGTERM
    stop the study at once (the record being written is finished, the episodes running
    are dropped, to be played by a rerun), print ``interrupted: N of M episodes saved;
    rerun the same command to resume`` and return 130 (Ctrl-C) or 143 (SIGTERM). In a
    script run as ``__main__``, the process then ends at once, episodes still running in
    worker threads with it, their planners' folders removed. A reader of stdout or
    stderr that goes away (``script 2>&1 | head -3``) ends no study: what is printed
    after is dropped, and the study writes its files.
    ``prog``: the name in the messages (default: the file of ``main``)."""
    prog = prog or Path(main.__code__.co_filename).name

    @functools.wraps(main)
    def guarded(*args, **kwargs) -> int:
        with _sigterm_interrupts(), pipe_safe_output():
            try:
                return main(*args, **kwargs)
            except (StudyError, ResultsError) as exc:
                print(f"{prog}: error: {one_line(exc)}", file=sys.stderr)
                return EXIT_ERROR
            except Ended as exc:
                if exc.code != EXIT_ERROR:
                    _end_if_threads(main, exc.code)
                return exc.code
            except KeyboardInterrupt as exc:
                code = getattr(exc, "code", EXIT_INTERRUPTED)
                saved = getattr(exc, "saved", None)
                counts = (
                    f"{saved[0]} of {saved[1]} episodes saved"
                    if saved
                    else "finished episodes are saved"
                )
                print(
                    f"\n{prog}: interrupted: {counts}; rerun the same command to resume",
                    file=sys.stderr,
                    flush=True,
                )
                _end_if_threads(main, code)
                return code

    return guarded


@contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """SIGTERM raises ``Interrupted(143)`` in the main thread while the study runs (when
    SIGTERM has its default action and this is the main thread)."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    ):
        yield
        return
    signal.signal(signal.SIGTERM, _terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _terminated(signum: int, frame) -> None:
    raise Interrupted(EXIT_TERMINATED)


def _end_if_threads(main: Callable[..., int], code: int) -> None:
    """In a script run as ``__main__`` with worker threads still playing, end now."""
    if main.__module__ == "__main__" and threading.active_count() > 1:
        end_now(code)


def end_now(code: int) -> None:
    """End the process without waiting for the worker threads still playing: their
    planners are killed (they die with their parent) and their folders removed."""
    from ..pddl.fd_planner import remove_own_folders

    remove_own_folders()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
