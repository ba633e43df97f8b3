"""S-expression reading with positions, and cutting PDDL out of surrounding prose."""

from __future__ import annotations

import re

from .diagnostics import Diagnostic, PDDLError


class Sym(str):
    """A lowercased symbol that remembers where it was written."""

    line: int
    col: int


class SList(list):
    """A parenthesized list that remembers where its '(' was written."""

    line: int
    col: int


MAX_DEPTH = 100  # far deeper than any real PDDL; keeps the recursive readers safe
_TOKEN = re.compile(r"\(|\)|[^\s(),;]+|;[^\n]*|,")
_DEFINE = re.compile(r"\(\s*define\b", re.IGNORECASE)


def _sym(text: str, line: int, col: int) -> Sym:
    sym = Sym(text.lower())
    sym.line, sym.col = line, col
    return sym


def line_of(text: str, line: int | None) -> str:
    """The stripped source line ``line`` (1-based) of ``text``, for snippets."""
    if line is None:
        return ""
    lines = text.splitlines()
    return lines[line - 1].strip()[:120] if 0 < line <= len(lines) else ""


def parse_sexprs(text: str, stage: str = "syntax") -> list[SList | Sym]:
    """Read every top-level s-expression of ``text``; commas count as spaces."""
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
    stack: list[SList] = []
    top: list[SList | Sym] = []
    line_index = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token[0] == ";" or token == ",":
            continue
        pos = match.start()
        while line_index + 1 < len(line_starts) and line_starts[line_index + 1] <= pos:
            line_index += 1
        line, col = line_index + 1, pos - line_starts[line_index] + 1
        if token == "(":
            if len(stack) >= MAX_DEPTH:
                raise PDDLError([Diagnostic(stage, f"parentheses nested more than {MAX_DEPTH} "
                                            f"levels deep", line, col, line_of(text, line))])
            node = SList()
            node.line, node.col = line, col
            (stack[-1] if stack else top).append(node)
            stack.append(node)
        elif token == ")":
            if not stack:
                raise PDDLError([Diagnostic(stage, "unbalanced parentheses: ')' closes nothing",
                                            line, col, line_of(text, line))])
            stack.pop()
        else:
            (stack[-1] if stack else top).append(_sym(token, line, col))
    if stack:
        opened = stack[0] if len(stack) == 1 else stack[-1]
        raise PDDLError([Diagnostic(
            stage, f"unbalanced parentheses: {len(stack)} '(' never closed; "
            f"the innermost open one is here", opened.line, opened.col, line_of(text, opened.line))])
    return top


def extract_define(text: str, stage: str) -> tuple[SList, list[Diagnostic]]:
    """The one ``(define ...)`` form of ``text``, and warnings for prose around it.

    Language models wrap PDDL in prose and Markdown fences; the form is taken from
    them and a warning says what was ignored.
    """
    if not text.strip():
        raise PDDLError([Diagnostic(stage, "the file is empty")])
    match = next((m for m in _DEFINE.finditer(text)  # not one in a comment
                  if ";" not in text[text.rfind("\n", 0, m.start()) + 1:m.start()]), None)
    if match is None:
        line = 1 + text[: len(text) - len(text.lstrip())].count("\n")
        raise PDDLError([Diagnostic(stage, "no '(define ...)' form found", line, 1,
                                    line_of(text, line))])
    start = match.start()
    end = _matching_paren(text, start)
    line_start = text.rfind("\n", 0, start) + 1
    padding = "\n" * text.count("\n", 0, start) + " " * (start - line_start)
    forms = parse_sexprs(padding + text[start:end], stage)  # raises if never closed
    trailing = text[end:]
    stray = re.match(r"\s*\)", trailing)
    if stray:
        raise PDDLError([_at(text, end + stray.end() - 1, stage,
                             "unbalanced parentheses: ')' closes nothing")])
    if re.search(r"\(\s*:", "\n".join(line.split(";", 1)[0] for line in trailing.split("\n"))):
        raise PDDLError([_at(text, end - 1, stage,
                             "unbalanced parentheses: this ')' closes '(define' but sections "
                             "follow it; a ')' too many stands before here")])
    warnings = []
    for part, offset in ((text[:start], 0), (trailing, end)):
        found = _first_content(part)
        if found is not None:
            pos = offset + found
            line = 1 + text.count("\n", 0, pos)
            warnings.append(Diagnostic(stage, "text outside the '(define ...)' form was ignored",
                                       line, pos - (text.rfind("\n", 0, pos) + 1) + 1,
                                       line_of(text, line), severity="warning"))
    return forms[0], warnings


def _at(text: str, pos: int, stage: str, message: str) -> Diagnostic:
    """A diagnostic at character offset ``pos`` of ``text``."""
    line = 1 + text.count("\n", 0, pos)
    return Diagnostic(stage, message, line, pos - (text.rfind("\n", 0, pos) + 1) + 1,
                      line_of(text, line))


def _first_content(text: str) -> int | None:
    """The offset in ``text`` of its first character outside whitespace and comments."""
    offset = 0
    for line in text.split("\n"):
        if line.split(";", 1)[0].strip():
            return offset + len(line) - len(line.lstrip())
        offset += len(line) + 1
    return None


def _matching_paren(text: str, start: int) -> int:
    """Index just past the ')' that closes the '(' at ``start`` (or the text's end)."""
    depth = 0
    i = start
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == ";":
            newline = text.find("\n", i)
            i = n if newline < 0 else newline
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n
