"""How a study fails: ``StudyError`` for a mistake the researcher can fix (a flag, a
model that cannot answer), printed as one line by ``study_main``; anything else is a
bug and keeps its traceback."""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Callable

EXIT_ERROR, EXIT_INTERRUPTED = 2, 130


class StudyError(Exception):
    """A study cannot run, for a reason said in one line."""


def one_line(text: object) -> str:
    """``text`` with every run of whitespace (newlines too) made one space."""
    return " ".join(str(text).split())


def study_main(main: Callable[..., int]) -> Callable[..., int]:
    """Decorates a script's ``main``: a StudyError prints ``script.py: error: <one line>``
    on stderr and returns 2; Ctrl-C prints that a rerun resumes and returns 130."""
    prog = Path(main.__code__.co_filename).name

    @functools.wraps(main)
    def guarded(*args, **kwargs) -> int:
        try:
            return main(*args, **kwargs)
        except StudyError as exc:
            print(f"{prog}: error: {one_line(exc)}", file=sys.stderr)
            return EXIT_ERROR
        except KeyboardInterrupt:
            print(f"\n{prog}: interrupted; finished episodes are saved, rerun the same "
                  f"command to resume", file=sys.stderr)
            return EXIT_INTERRUPTED

    return guarded
