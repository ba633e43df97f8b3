"""A prompt given as data: a template whose fields the PDDLego+ loop fills (the
formalizer's, :data:`FORMALIZER`) or PlanGen's steps do (its :class:`TemplateFields` in
:mod:`planloop.policies.plangen`).

The whole syntax:

- ``{name}`` is a field (:data:`FIELDS` for the formalizer), filled from the loop's request;
- ``{if name}`` ... ``{end}`` keeps what it encloses only when ``name`` holds: a field
  that is not empty, or a trigger (the formalizer's ``start``, ``growth``,
  ``solver_error``, ``simulation_error``) that is the request's; ``{if not name}`` the
  opposite; blocks nest;
- ``{{X}}`` is the text ``{X}`` for any of the above (``{{observation}}``, ``{{end}}``);
- every other brace is text, so JSON examples need no escaping.

An unknown name, an ``{if}`` without its ``{end}`` (or the reverse) and a template
without its required field (the formalizer's ``{observation}``) are refused when it is
read. Fields are filled in one pass:
what a field brings in (the game's text, a model's file) is never read as template.
A template file is at most :data:`MAX_BYTES` bytes of UTF-8; the filled text is sent
as the call's one (user) message, with no system message.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import PlanloopError
from .request import TRIGGERS, Request

MAX_BYTES = 256 * 1024

FIELDS = {
    "observation": "everything so far: the first observation, then '> command' and the "
    "game's answer for each command played",
    "new_observations": "what the game showed since the last files (at the start, the "
    "first observation)",
    "task": "the task in words",
    "valid_commands": "the commands the game accepts now, comma-separated",
    "df": "the last domain file (the fixed one under --domain-file); empty at the start",
    "pf": "the last problem file; empty at the start",
    "error": "why new files are asked for: the check that failed, or the refused step "
    "and the game's answer; empty otherwise",
    "succeeded": "the commands that succeeded since the last files, comma-separated",
    "repeated": "a command the game refused twice in a row; empty otherwise",
}


@dataclass(frozen=True)
class TemplateFields:
    """What a kind of template may name: its ``fields`` (name -> what fills it), the
    ``triggers`` its ``{if}`` may test, and the field it must use (``required``: the
    one through which the game's observations reach the model)."""

    fields: Mapping[str, str]
    required: str
    triggers: tuple[str, ...] = ()


FORMALIZER = TemplateFields(FIELDS, "observation", TRIGGERS)  # the PDDLego+ loop's

NAME = r"[A-Za-z_][A-Za-z0-9_]*"
TOKEN = re.compile(rf"\{{\{{((?:if not |if )?{NAME})\}}\}}|\{{(if not |if )?({NAME})\}}")


class TemplateError(PlanloopError, ValueError):
    """A template that cannot be used, said in one line."""


@dataclass(frozen=True)
class PromptTemplate:
    """A prompt template (the module's syntax); ``name`` labels it in ``version``, which
    records carry: ``file:NAME@sha256:`` and the first 12 hex digits of the text's hash."""

    text: str
    name: str = "template"
    kind: TemplateFields = FORMALIZER
    ops: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "ops", _compile(self.text, self.name, self.kind))

    @property
    def version(self) -> str:
        digest = hashlib.sha256(self.text.encode()).hexdigest()[:12]
        return f"file:{self.name}@sha256:{digest}"

    def fill(self, request: Request) -> str:
        """The formalizer's prompt for ``request``."""
        return self.render(_values(request), request.trigger)

    def render(self, values: Mapping[str, str], trigger: str | None = None) -> str:
        """The prompt with every field of the template's kind in ``values``, ``trigger``
        the one that holds."""
        out, at = [], 0
        while at < len(self.ops):
            kind, value, negated, skip = self.ops[at]
            at += 1
            if kind == "text":
                out.append(value)
            elif kind == "field":
                out.append(values[value])
            elif (bool(values[value]) if value in values else trigger == value) == negated:
                at = skip
        return "".join(out)


def load_template(path: str | Path, kind: TemplateFields = FORMALIZER) -> PromptTemplate:
    """The template of ``kind`` in file ``path``, named by its file name (characters other than
    letters, digits, ``.``, ``_`` and ``-`` made ``_``); a TemplateError if it cannot
    be read, is over :data:`MAX_BYTES`, is not UTF-8 or is not a valid template."""
    path = Path(path)
    if not path.is_file():
        raise TemplateError(f"prompt template {path}: no such file")
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise TemplateError(f"prompt template {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_BYTES:
        raise TemplateError(f"prompt template {path}: larger than the limit of {MAX_BYTES} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TemplateError(f"prompt template {path}: not UTF-8 (byte {exc.start})") from None
    return PromptTemplate(text, re.sub(r"[^A-Za-z0-9._-]", "_", path.name), kind)


def escape(text: str) -> str:
    """``text`` as a template that fills to ``text`` itself."""
    return TOKEN.sub(lambda match: "{" + match.group(0) + "}", text)


def _values(request: Request) -> dict[str, str]:
    files = request.files
    df = request.frozen_df if request.frozen_df is not None else (files.df if files else "")
    return {
        "observation": "\n".join(request.history),
        "new_observations": "\n".join(request.new_observations),
        "task": request.task,
        "valid_commands": ", ".join(request.valid_commands),
        "df": df,
        "pf": files.pf if files else "",
        "error": request.error or "",
        "succeeded": ", ".join(request.succeeded),
        "repeated": request.repeated or "",
    }


def _compile(text: str, source: str, kind: TemplateFields) -> tuple:
    """The template as a flat list of ``(kind, value, negated, skip)``: ``text`` and
    ``field`` are emitted, a failing ``if`` jumps to ``skip`` (the op after its end)."""
    fields = ", ".join(kind.fields)
    ops: list[tuple] = []
    open_ifs: list[tuple[int, int]] = []  # (op index, line) of each open {if}
    at, line = 0, 1
    for match in TOKEN.finditer(text):
        line += text.count("\n", at, match.start())
        ops += [("text", text[at : match.start()], False, 0)] if match.start() > at else []
        at = match.end()
        literal, test, name = match.groups()
        where = f"prompt template {source}, line {line}"
        if literal:
            ops.append(("text", "{" + literal + "}", False, 0))
        elif test:
            if name not in kind.fields and name not in kind.triggers:
                triggers = f"; triggers: {', '.join(kind.triggers)}" if kind.triggers else ""
                raise TemplateError(
                    f"{where}: {{{test}{name}}} tests no field or trigger (fields: "
                    f"{fields}{triggers})"
                )
            open_ifs.append((len(ops), line))
            ops.append(("if", name, test == "if not ", 0))
        elif name == "end":
            if not open_ifs:
                raise TemplateError(f"{where}: {{end}} closes no {{if}}")
            start, _ = open_ifs.pop()
            ops[start] = (*ops[start][:3], len(ops))
        elif name in kind.fields:
            ops.append(("field", name, False, 0))
        else:
            raise TemplateError(
                f"{where}: unknown field {{{name}}} (fields: {fields}; "
                f"write {{{{{name}}}}} for the text {{{name}}})"
            )
    ops += [("text", text[at:], False, 0)] if text[at:] else []
    if open_ifs:
        raise TemplateError(
            f"prompt template {source}, line {open_ifs[-1][1]}: {{if}} without its {{end}}"
        )
    if not any(op == ("field", kind.required, False, 0) for op in ops):
        raise TemplateError(
            f"prompt template {source}: no {{{kind.required}}} field (required: the game's "
            f"observations reach the model only through it)"
        )
    return tuple(ops)
