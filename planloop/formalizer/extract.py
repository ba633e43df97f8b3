"""Reading a domain file (DF) and a problem file (PF) out of whatever a model wrote."""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

from ..errors import PlanloopError

_FENCE = re.compile(r"```[ \t]*([\w-]*)[ \t]*\n(.*?)```", re.DOTALL)
_BLANKS = r"(?:\s|\\[nrt])*"  # whitespace, also as JSON escapes
_DEFINE = re.compile(rf"\({_BLANKS}define{_BLANKS}\({_BLANKS}(domain|problem)\b", re.IGNORECASE)
_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)
_STRING_END = {
    quote: re.compile(rf'(?:[^\\]|\\.)*?{quote}(?={_BLANKS}(?:[,}}\]"]|\Z))', re.DOTALL)
    for quote in ('"', '"""')
}
# \uXXXX but not a UTF-16 surrogate: a lone one could not be written out as UTF-8
_ESCAPE = re.compile(r'\\(u(?![dD][89a-fA-F])[0-9a-fA-F]{4}|["\\/bfnrt])')
_ESCAPED = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class ExtractionError(PlanloopError, ValueError):
    """The reply holds no usable DF or PF; the message says what was missing."""


@dataclass(frozen=True)
class Files:
    """A formalization: the domain file and the problem file."""

    df: str
    pf: str


def extract_files(text: str, need_df: bool = True) -> Files:
    """The DF and PF in a model's reply.

    Only the final answer is read: what follows the last ``</think>`` of a reasoning
    model. Tried in order: a JSON object ``{"df": ..., "pf": ...}`` (bare or fenced),
    then ``(define (domain ...))`` and ``(define (problem ...))`` forms anywhere (fenced
    blocks, string values of broken JSON, prose). With ``need_df=False`` (a frozen
    domain) only the PF is required and ``df`` may be empty. Raises ExtractionError
    naming what is missing.
    """
    if not isinstance(text, str):
        raise ExtractionError(
            f"the reply was not text but {type(text).__name__}: answer with "
            f"a PDDL domain file and a PDDL problem file"
        )
    if not text.strip():
        raise ExtractionError(
            "the reply was empty: answer with a PDDL domain file and a PDDL problem file"
        )
    answer, where = _final_answer(text)
    found = _from_json(answer) or _from_forms(answer)
    df, pf = found.get("domain", ""), found.get("problem", "")
    missing = [
        name
        for name, body in (("domain file", df if need_df else "x"), ("problem file", pf))
        if not body
    ]
    if missing:
        raise ExtractionError(_missing_message(missing, where, need_df))
    return Files(df, pf)


def extract_json_files(text: str, need_df: bool = True) -> Files:
    """The DF and PF of a reply that is one JSON object ``{"df": ..., "pf": ...}`` (after
    its ``</think>`` block; bare or in a fence), as PDDLego+'s code reads it; anything
    else raises ExtractionError."""
    answer, _ = _final_answer(text if isinstance(text, str) else "")
    fenced = [body for _, body in _FENCE.findall(answer)]
    body = (fenced[0] if fenced else answer).strip()
    try:
        value = json.loads(body)
    except ValueError:
        value = None
    keys = ("df", "pf") if need_df else ("pf",)
    if not isinstance(value, dict) or not all(
        isinstance(value.get(k), str) and value[k].strip() for k in keys
    ):
        raise ExtractionError(f"the reply is not a JSON object with {' and '.join(keys)}")
    return Files(str(value.get("df") or "").strip(), value["pf"].strip())


def _final_answer(text: str) -> tuple[str, str | None]:
    """The part of a reply that answers (what follows the last ``</think>``) and where it
    lies, for the messages; None when the reply ends inside a ``<think>`` block."""
    closes = list(_THINK_CLOSE.finditer(text))
    answer = text[closes[-1].end() :] if closes else text
    opened = _THINK_OPEN.search(answer)
    if opened:
        return answer[: opened.start()], None
    return answer, " after its </think> block" if closes else ""


def _missing_message(missing: list[str], where: str | None, need_df: bool) -> str:
    """What to tell the model when files are missing from its answer (``where``: see
    _final_answer)."""
    advice = "write each as a complete (define ...) form" + (
        ', or answer with JSON {"df": ..., "pf": ...}' if need_df else ""
    )
    if where is None:
        return (
            f"the reply ended inside its <think> block before any {' or '.join(missing)}: "
            f"reason more briefly, close the block with </think>, then {advice}"
        )
    return f"the reply holds no {' and no '.join(missing)}{where}: {advice}"


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
            return {
                kind: value[key].strip()
                for kind, key in (("domain", "df"), ("problem", "pf"))
                if isinstance(value.get(key), str) and value[key].strip()
            }
    return {}


def _from_forms(text: str) -> dict[str, str]:
    """The last ``(define (domain|problem ...))`` form of each kind (read by _form), each
    read no further than the next form or the next fence mark."""
    fences = [(-1, -1)] + [match.span(2) for match in _FENCE.finditer(text)]
    marks = [match.start() for match in re.finditer("```", text)] + [len(text)]
    found: dict[str, str] = {}
    matches = list(_DEFINE.finditer(text))
    # strict=False: with no match, the sentinel None pairs with nothing
    for match, following in zip(matches, matches[1:] + [None], strict=False):
        start = match.start()
        stop = min(
            len(text) if following is None else following.start(),
            marks[bisect.bisect_left(marks, start)],
        )
        fenced = start < fences[bisect.bisect_right(fences, (start, len(text))) - 1][1]
        found[match.group(1).lower()] = _form(text, start, stop, fenced)
    return found


def _form(text: str, start: int, stop: int, fenced: bool) -> str:
    """The form at ``start``, read no further than ``stop`` or the end of the string
    value it opens (``"df": "(define ...``).

    PDDL has no backslashes, so JSON string escapes (``\\n``, ``\\"``, ...) in it come from
    a string it was copied out of, and are decoded. The form ends at its closing
    parenthesis, unless it never closes or more parentheses follow it in its fenced
    block or string (a ')' too many, sections after an early close): then it runs to
    its bound, so that the reader, not this function, reports the parenthesis with its
    line and column."""
    quote = _string_quote(text, start)
    if quote:
        stop = _string_end(text, start, stop, quote)
    body = _unescape(text[start:stop])
    end = _closing(body)
    if end is None or ((fenced or quote) and _has_parenthesis(body[end:])):
        return body.strip()
    return body[:end].strip()


def _string_quote(text: str, start: int) -> str:
    """The quote (``"`` or ``\"\"\"``) opening the JSON or Python string value that the
    form at ``start`` begins (after ``:``, ``[`` or ``,``), or "" when there is none."""
    before = _blanks_before(text, start)
    quote = next((q for q in ('"""', '"') if text.endswith(q, 0, before)), "")
    opener = _blanks_before(text, before - len(quote))
    return quote if quote and text[opener - 1 : opener] in (":", "[", ",") else ""


def _blanks_before(text: str, i: int) -> int:
    """Where the blanks (whitespace or escaped ``\\n``, ``\\r``, ``\\t``) ending at i start."""
    while i:
        if text[i - 1].isspace():
            i -= 1
        elif i >= 2 and text[i - 2 : i] in ("\\n", "\\r", "\\t"):
            i -= 2
        else:
            break
    return i


def _string_end(text: str, start: int, stop: int, quote: str) -> int:
    """Where the string value holding ``start`` ends (at ``stop`` at the latest): at its
    first unescaped ``quote`` that JSON could close there (followed by ``,``, ``}``,
    ``]``, ``"`` or the end); at ``stop`` when the reply was cut off inside it."""
    match = _STRING_END[quote].match(text, start, stop)
    return match.end() - len(quote) if match else stop


def _unescape(text: str) -> str:
    """``text`` with its JSON string escapes decoded (a stray backslash is kept)."""

    def decode(escape: re.Match) -> str:
        code = escape.group(1)
        return chr(int(code[1:], 16)) if code[0] == "u" else _ESCAPED.get(code, code)

    return _ESCAPE.sub(decode, text)


def _has_parenthesis(text: str) -> bool:
    """Whether ``text`` holds a parenthesis outside ``;`` comments."""
    return bool(re.search(r"[()]", re.sub(r";[^\n]*", "", text)))


def _closing(text: str) -> int | None:
    """The index after the parenthesis closing the one ``text`` starts with (comments
    skipped)."""
    depth, i = 0, 0
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
