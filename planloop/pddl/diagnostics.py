"""Diagnostics: every problem found in PDDL text, with where it is."""

from __future__ import annotations

import reprlib
from dataclasses import dataclass
from typing import Literal

from ..errors import PlanloopError

Severity = Literal["error", "warning"]
"""An ``error`` refuses the text; a ``warning`` is a form read as planners read it."""


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
    empty file, a missing section, an argument that is no text at all). ``cause`` is
    the warning of a form read as planners read it that led to this error (an
    undeclared type read as ``object``, then a type mismatch).
    """

    stage: str
    message: str
    line: int | None = None
    col: int | None = None
    snippet: str = ""
    severity: Severity = "error"
    cause: Diagnostic | None = None

    @property
    def where(self) -> str:
        """``line 3, col 17: ``, or nothing when the text has no place for it."""
        return f"line {self.line}, col {self.col}: " if self.line is not None else ""

    def headline(self) -> str:
        """The diagnostic on one line, its cause included, without the source line."""
        text = f"{self.stage} {self.severity}: {self.where}{self.message}"
        if self.cause is None:
            return text
        return f"{text} (because of {self.cause.where}{self.cause.message})"

    def __str__(self) -> str:
        text = self.headline()
        return f"{text}\n    {self.snippet}" if self.snippet else text


def summary(diagnostics, limit: int = 3) -> str:
    """``diagnostics`` on one line, for a table cell or a one-line message: the first
    ``limit`` without their source lines (numbered when there are several), then how
    many more there are."""
    if len(diagnostics) == 1:
        return diagnostics[0].headline()
    shown = " ".join(f"[{i}] {d.headline()}" for i, d in enumerate(diagnostics[:limit], 1))
    rest = len(diagnostics) - limit
    return f"{shown} [and {rest} more]" if rest > 0 else shown


class PDDLError(PlanloopError, ValueError):
    """The project's one error type for bad PDDL input; carries the diagnostics."""

    def __init__(self, diagnostics: list[Diagnostic] | tuple[Diagnostic, ...]):
        self.diagnostics = tuple(diagnostics)
        super().__init__("\n".join(str(d) for d in self.diagnostics) or "invalid PDDL")

    def summary(self, limit: int = 3) -> str:
        """The diagnostics on one line, capped (see :func:`summary`)."""
        return summary(self.diagnostics, limit) or "invalid PDDL"
