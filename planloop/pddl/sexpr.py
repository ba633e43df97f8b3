"""S-expression reading with positions, and cutting PDDL out of surrounding prose."""

from __future__ import annotations

import re

from .diagnostics import Diagnostic, PDDLError, quote
from .source import DEFAULT_LIMITS, Limits


class Sym(str):
    """A lowercased symbol that remembers where it was written."""

    __slots__ = ("line", "col")
    line: int
    col: int


class SList(list):
    """A parenthesized list that remembers where its '(' was written."""

    __slots__ = ("line", "col")
    line: int
    col: int


_TOKEN = re.compile(r"(\n)|([()])|([^\s(),;]+)|;[^\n]*|,")
_DEFINE = re.compile(r"\(\s*define\b", re.IGNORECASE)
_GLUED = re.compile(r"(?<=[^?])(?=\?)")  # before each '?' that follows another character


def snippet(line: str) -> str:
    """A source line as a diagnostic shows it: stripped, printable ASCII, cut at 120."""
    return quote(line.strip(), 120, mark="")


def line_of(text: str, line: int | None) -> str:
    """The snippet of line ``line`` (1-based) of ``text``."""
    if line is None or line < 1:
        return ""
    lines = text.split("\n", line)
    return snippet(lines[line - 1]) if line <= len(lines) else ""


def read_form(
    text: str, start: int, stage: str, limits: Limits, glued: list[Diagnostic] | None = None
) -> tuple[SList, int]:
    """The s-expression whose '(' is at ``start``, and the offset just past its ')'.

    Reads iteratively (commas count as spaces) and refuses nesting deeper than
    ``limits.max_depth`` as soon as it is seen, and a name that is not ASCII. Given a ``glued`` list, a variable written
    against the name before it (``at?r``) is read as two symbols, as FF's scanner reads
    it, with a warning in ``glued``; else it stays one symbol.
    """
    line, line_start = 1 + text.count("\n", 0, start), text.rfind("\n", 0, start) + 1
    stack: list[SList] = []
    for match in _TOKEN.finditer(text, start):
        newline, paren, word = match.groups()
        if newline:
            line, line_start = line + 1, match.end()
        elif paren == "(":
            col = match.start() - line_start + 1
            if len(stack) >= limits.max_depth:
                found = f"parentheses nested {len(stack) + 1} levels deep"
                raise PDDLError(
                    [
                        Diagnostic(
                            stage,
                            limits.exceeded("max_depth", found),
                            line,
                            col,
                            line_of(text, line),
                        )
                    ]
                )
            node = SList()
            node.line, node.col = line, col
            if stack:
                stack[-1].append(node)
            stack.append(node)
        elif paren:
            node = stack.pop()
            if not stack:
                return node, match.end()
        elif word:
            col = match.start() - line_start + 1
            if not word.isascii():
                raise PDDLError(
                    [
                        Diagnostic(
                            stage,
                            f"the name {quote(word)} is not ASCII: PDDL names are ASCII "
                            f"letters, digits, '-' and '_', and Fast Downward refuses others",
                            line,
                            col,
                            line_of(text, line),
                        )
                    ]
                )
            parts = _GLUED.split(word) if glued is not None and "?" in word[1:] else [word]
            for part in parts:
                sym = Sym(part.lower())
                sym.line, sym.col = line, col
                stack[-1].append(sym)
                if glued is not None and col > match.start() - line_start + 1:
                    glued.append(
                        Diagnostic(
                            stage,
                            f"no space before the variable {quote(part)}; read as two symbols",
                            line,
                            col,
                            line_of(text, line),
                            "warning",
                        )
                    )
                col += len(part)
    opened = stack[0] if len(stack) == 1 else stack[-1]
    raise PDDLError(
        [
            Diagnostic(
                stage,
                f"unbalanced parentheses: {len(stack)} '(' never closed; "
                f"the innermost open one is here",
                opened.line,
                opened.col,
                line_of(text, opened.line),
            )
        ]
    )


def extract_define(
    text: str, stage: str, limits: Limits = DEFAULT_LIMITS, strict: bool = True
) -> tuple[SList, list[Diagnostic]]:
    """The one ``(define ...)`` form of ``text``, and warnings for prose around it.

    Language models wrap PDDL in prose and Markdown fences; the form is taken from
    them and a warning says what was ignored. Unless ``strict``, a variable glued to the
    name before it is read apart (see :func:`read_form`).
    """
    if not text.strip():
        raise PDDLError([Diagnostic(stage, f"the {stage} is empty: received {quote(text)}")])
    match = next(
        (
            m
            for m in _DEFINE.finditer(text)  # not one in a comment
            if ";" not in text[text.rfind("\n", 0, m.start()) + 1 : m.start()]
        ),
        None,
    )
    if match is None:
        line = 1 + text[: len(text) - len(text.lstrip())].count("\n")
        raise PDDLError(
            [
                Diagnostic(
                    stage,
                    f"not PDDL: no '(define ...)' form in {quote(text.strip())}",
                    line,
                    1,
                    line_of(text, line),
                )
            ]
        )
    start = match.start()
    glued: list[Diagnostic] | None = None if strict else []
    form, end = read_form(text, start, stage, limits, glued)
    trailing = text[end:]
    stray = re.match(r"\s*\)", trailing)
    if stray:
        raise PDDLError(
            [_at(text, end + stray.end() - 1, stage, "unbalanced parentheses: ')' closes nothing")]
        )
    if re.search(r"\(\s*:", "\n".join(line.split(";", 1)[0] for line in trailing.split("\n"))):
        raise PDDLError(
            [
                _at(
                    text,
                    end - 1,
                    stage,
                    "unbalanced parentheses: this ')' closes '(define' but sections "
                    "follow it; a ')' too many stands before here",
                )
            ]
        )
    warnings = []
    for part, offset in ((text[:start], 0), (trailing, end)):
        found = _first_content(part)
        if found is not None:
            pos = offset + found
            line = 1 + text.count("\n", 0, pos)
            warnings.append(
                Diagnostic(
                    stage,
                    "text outside the '(define ...)' form was ignored",
                    line,
                    pos - (text.rfind("\n", 0, pos) + 1) + 1,
                    line_of(text, line),
                    severity="warning",
                )
            )
    return form, warnings + (glued or [])


def _at(text: str, pos: int, stage: str, message: str) -> Diagnostic:
    """A diagnostic at character offset ``pos`` of ``text``."""
    line = 1 + text.count("\n", 0, pos)
    return Diagnostic(
        stage, message, line, pos - (text.rfind("\n", 0, pos) + 1) + 1, line_of(text, line)
    )


def _first_content(text: str) -> int | None:
    """The offset in ``text`` of its first character outside whitespace and comments."""
    offset = 0
    for line in text.split("\n"):
        if line.split(";", 1)[0].strip():
            return offset + len(line) - len(line.lstrip())
        offset += len(line) + 1
    return None
