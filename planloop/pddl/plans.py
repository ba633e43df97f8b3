"""Reading action commands and plans in the formats people and planners write."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .diagnostics import Diagnostic, PDDLError

_PAREN_GROUP = re.compile(r"\(([^()]*)\)")
_STEP_PREFIX = re.compile(r"^\s*(?:step\s*)?\d+\s*[.:)]\s*|^\s*[-*]\s+", re.IGNORECASE)
_TIMESTAMP = re.compile(r"^\s*\d+(?:\.\d+)?\s*:\s*")
_DURATION = re.compile(r"\s*\[\s*\d+(?:\.\d+)?\s*\]\s*$")


@dataclass(frozen=True)
class Step:
    """One plan step: an action name, its arguments and the 1-based source line."""

    name: str
    args: tuple[str, ...]
    line: int = 0

    def __str__(self) -> str:
        return "(" + " ".join((self.name,) + self.args) + ")"


def parse_command(text: str) -> tuple[str, tuple[str, ...]]:
    """``(Stack A B)``, ``stack a b`` or ``stack(a, b)`` -> ("stack", ("a", "b")).

    Raises ValueError for text that names no action.
    """
    body = text.strip()
    if body.startswith("(") and body.endswith(")"):
        body = body[1:-1]
    elif "(" in body and body.endswith(")"):  # call style: stack(a, b)
        head, _, rest = body.partition("(")
        body = head + " " + rest[:-1]
    if "(" in body or ")" in body:
        raise ValueError(f"unbalanced or nested parentheses in {text!r}")
    words = body.replace(",", " ").lower().split()
    if not words:
        raise ValueError("empty command")
    return words[0], tuple(words[1:])


def parse_plan(text: str) -> list[Step]:
    """Read a plan: one action per line, ``(action args)`` or bare words.

    Accepts ``;`` comments (so Fast Downward's ``; cost = 4 (unit cost)`` line),
    numbered steps (``1.``, ``Step 2:``), timestamps (``0.000: (a) [1]``), upper
    case and blank lines. Raises :class:`PDDLError` with the line of anything else.
    """
    steps: list[Step] = []
    errors: list[Diagnostic] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split(";", 1)[0].strip()
        if not line or line.startswith("```"):
            continue
        line = _DURATION.sub("", _TIMESTAMP.sub("", _STEP_PREFIX.sub("", line)))
        groups = _PAREN_GROUP.findall(line)
        if groups and not _PAREN_GROUP.sub("", line).strip():
            commands = ["(" + g + ")" for g in groups]
        else:
            commands = [line]
        for command in commands:
            try:
                name, args = parse_command(command)
            except ValueError as exc:
                errors.append(Diagnostic("plan", f"cannot read a plan step: {exc}", number, 1,
                                         raw.strip()[:120]))
                continue
            steps.append(Step(name, args, number))
    if errors:
        raise PDDLError(errors)
    return steps
