"""Diagnostics: every problem found in PDDL text, with where it is."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Diagnostic:
    """One problem in a domain, problem or plan text.

    ``stage`` names the step that found it (``syntax``, ``domain``, ``problem``,
    ``plan``); ``line`` and ``col`` are 1-based and None when the text has no place
    for it (an empty file, a missing section).
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
