"""Reading a domain file (DF) and a problem file (PF) out of whatever a model wrote."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

_FENCE = re.compile(r"```[ \t]*([\w-]*)[ \t]*\n(.*?)```", re.DOTALL)
_DEFINE = re.compile(r"\(\s*define\s*\(\s*(domain|problem)\b", re.IGNORECASE)


class ExtractionError(ValueError):
    """The reply holds no usable DF or PF; the message says what was missing."""


@dataclass(frozen=True)
class Files:
    """A formalization: the domain file and the problem file."""

    df: str
    pf: str


def extract_files(text: str, need_df: bool = True) -> Files:
    """The DF and PF in a model's reply.

    Tried in order: a JSON object ``{"df": ..., "pf": ...}`` (bare or fenced), then
    ``(define (domain ...))`` and ``(define (problem ...))`` forms anywhere (fenced
    blocks or prose). With ``need_df=False`` (a frozen domain) only the PF is required
    and ``df`` may be empty. Raises ExtractionError naming what is missing.
    """
    if not isinstance(text, str):
        raise ExtractionError(f"the reply was not text but {type(text).__name__}: answer with "
                              f"a PDDL domain file and a PDDL problem file")
    if not text.strip():
        raise ExtractionError("the reply was empty: answer with a PDDL domain file and a "
                              "PDDL problem file")
    found = _from_json(text) or _from_forms(text)
    df, pf = found.get("domain", ""), found.get("problem", "")
    missing = [name for name, body in (("domain file", df if need_df else "x"),
                                       ("problem file", pf)) if not body]
    if missing:
        raise ExtractionError(
            f"the reply holds no {' and no '.join(missing)}: write each as a complete "
            f"(define ...) form" + (', or answer with JSON {"df": ..., "pf": ...}'
                                    if need_df else ""))
    return Files(df, pf)


def json_objects(text: str) -> Iterator[dict]:
    """Every JSON object in a reply, in order: those in fenced blocks first, then the
    rest of the text (prose around them is skipped)."""
    decoder = json.JSONDecoder()
    for candidate in [body for _, body in _FENCE.findall(text)] + [text]:
        for start in (m.start() for m in re.finditer(r"\{", candidate)):
            try:
                value, _ = decoder.raw_decode(candidate, start)
            except ValueError:
                continue
            if isinstance(value, dict):
                yield value


def _from_json(text: str) -> dict[str, str]:
    """``domain``/``problem`` from the first JSON object holding ``df`` or ``pf``."""
    for value in json_objects(text):
        if {"df", "pf"} & set(value):
            return {kind: value[key].strip() for kind, key in
                    (("domain", "df"), ("problem", "pf"))
                    if isinstance(value.get(key), str) and value[key].strip()}
    return {}


def _from_forms(text: str) -> dict[str, str]:
    """The last ``(define (domain|problem ...))`` form of each kind. A form that never
    closes runs to the next form (or the end), so that the reader, not this function,
    reports the unbalanced parenthesis with its line and column."""
    found: dict[str, str] = {}
    matches = list(_DEFINE.finditer(text))
    for match, following in zip(matches, matches[1:] + [None]):
        stop = len(text) if following is None else following.start()
        end = _closing(text[:stop], match.start())
        body = text[match.start():end] if end is not None else \
            text[match.start():stop].split("```")[0]
        found[match.group(1).lower()] = body.strip()
    return found


def _closing(text: str, start: int) -> int | None:
    """The index after the parenthesis closing the one at ``start`` (comments skipped)."""
    depth, i = 0, start
    while i < len(text):
        ch = text[i]
        if ch == ";":
            newline = text.find("\n", i)
            i = len(text) if newline < 0 else newline
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None
