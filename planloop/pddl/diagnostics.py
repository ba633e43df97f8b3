"""Diagnostics: every problem found in PDDL text, with where it is."""

from __future__ import annotations

import reprlib
from dataclasses import dataclass


def quote(text: str, limit: int = 60, mark: str = "'") -> str:
    """``text`` between ``mark``s for a message: printable ASCII only (any other character
    escaped as :func:`ascii` escapes it), cut after ``limit`` characters with ``...``."""
    shown: list[str] = []
    size = 0
    for ch in text[: limit + 1]:
        piece = ch if " " <= ch <= "~" and ch != "\\" else ascii(ch)[1:-1]
        size += len(piece)
        if size > limit:
            return mark + "".join(shown) + "..." + mark
        shown.append(piece)
    return mark + "".join(shown) + mark


def received(value: object) -> str:
    """What a caller passed, for a message: quoted text, or the type and a short repr."""
    if isinstance(value, str):
        return quote(value)
    return f"{type(value).__name__} {quote(reprlib.repr(value))}"


@dataclass(frozen=True)
class Diagnostic:
    """One problem in a domain, problem or plan text.

    ``stage`` names the input it is about (``domain``, ``problem``, ``plan``);
    ``line`` and ``col`` are 1-based and None when the text has no place for it (an
    empty file, a missing section, an argument that is no text at all).
    """

    stage: str
    message: str
    line: int | None = None
    col: int | None = None
    snippet: str = ""
    severity: str = "error"

    def __str__(self) -> str:
        where = f"line {self.line}, col {self.col}: " if self.line is not None else ""
        text = f"{self.stage} {self.severity}: {where}{self.message}"
        return f"{text}\n    {self.snippet}" if self.snippet else text


class PDDLError(ValueError):
    """The project's one error type for bad PDDL input; carries the diagnostics."""

    def __init__(self, diagnostics: list[Diagnostic] | tuple[Diagnostic, ...]):
        self.diagnostics = tuple(diagnostics)
        super().__init__("\n".join(str(d) for d in self.diagnostics) or "invalid PDDL")
