"""Reading action commands and plans in the formats people and planners write."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .diagnostics import Diagnostic, PDDLError, quote, received
from .grounding import GroundAction
from .sexpr import snippet
from .source import DEFAULT_LIMITS, Limits, unix_newlines

_PAREN_GROUP = re.compile(r"\(([^()]*)\)")
_STEP_PREFIX = re.compile(r"^\s*(?:step\s*)?\d+\s*[.:)]\s*|^\s*[-*]\s+", re.IGNORECASE)
_TIMESTAMP = re.compile(r"^\s*\d+(?:\.\d+)?\s*:\s*")
_DURATION = re.compile(r"\s*\[\s*\d+(?:\.\d+)?\s*\]\s*$")


@dataclass(frozen=True)
class Step:
    """One plan step: an action name, its arguments and where it was written (the 1-based
    line of a plan text, or place in a plan list)."""

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
        raise ValueError(f"unbalanced or nested parentheses in {quote(text)}")
    words = body.replace(",", " ").lower().split()
    if not words:
        raise ValueError(f"empty command: received {quote(text)}")
    return words[0], tuple(words[1:])


Plan = str | bytes | Iterable[str | Step | GroundAction]


def parse_plan(plan: Plan, limits: Limits = DEFAULT_LIMITS) -> list[Step]:
    """Read a plan: text (or UTF-8 bytes) with one action per line, or an iterable of
    command strings, steps or ground actions.

    Text may hold ``;`` comments (so Fast Downward's ``; cost = 4 (unit cost)`` line),
    numbered steps (``1.``, ``Step 2:``), timestamps (``0.000: (a) [1]``), upper case
    and blank lines; ``\\r`` and ``\\r\\n`` end lines too. Raises :class:`PDDLError` with
    a diagnostic for every step it cannot read (at its line, or its place in the list)
    and for anything that is not a plan at all, or plan text past ``limits.max_bytes``.
    """
    if isinstance(plan, (str, bytes)):
        limits.check(
            "max_bytes",
            len(plan),
            "plan",
            "bytes" if isinstance(plan, bytes) else "characters of plan text",
        )
    if isinstance(plan, bytes):
        try:
            plan = plan.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise PDDLError([Diagnostic("plan", f"the plan is not UTF-8 text: {exc}")]) from None
    items: Iterable[tuple[int, object, str]]  # (number, item, source line)
    if isinstance(plan, str):
        items = _text_commands(plan)
    else:
        try:
            items = ((n, item, "") for n, item in enumerate(plan, start=1))
        except TypeError:
            raise PDDLError(
                [
                    Diagnostic(
                        "plan",
                        f"a plan must be text, bytes or a list of "
                        f"commands; received {received(plan)}",
                    )
                ]
            ) from None
    steps: list[Step] = []
    errors: list[Diagnostic] = []
    for number, item, source in items:
        if isinstance(item, Step):
            steps.append(item)
        elif isinstance(item, GroundAction):
            steps.append(Step(item.name, item.args, number))
        elif not isinstance(item, str):
            errors.append(
                Diagnostic(
                    "plan",
                    f"a plan step must be a command or an action; received {received(item)}",
                    number,
                    1,
                )
            )
        else:
            try:
                steps.append(Step(*parse_command(item), number))
            except ValueError as exc:
                errors.append(
                    Diagnostic(
                        "plan", f"cannot read a plan step: {exc}", number, 1, snippet(source)
                    )
                )
    if errors:
        raise PDDLError(errors)
    return steps


def _text_commands(text: str) -> Iterator[tuple[int, str, str]]:
    """(line number, command, line) for each command written in a plan text."""
    for number, raw in enumerate(unix_newlines(text).split("\n"), start=1):
        line = raw.split(";", 1)[0].strip()
        if not line or line.startswith("```"):
            continue
        line = _DURATION.sub("", _TIMESTAMP.sub("", _STEP_PREFIX.sub("", line)))
        groups = _PAREN_GROUP.findall(line)
        if groups and not _PAREN_GROUP.sub("", line).strip():
            for group in groups:
                yield number, "(" + group + ")", raw
        else:
            yield number, line, raw
