"""What every reading of PDDL text shares: :class:`Reader` (one reading's text, its
errors and warnings, the forms planners tolerate, typed lists and types), the ``define``
form's sections, and the declarations and type tests of both a domain and a problem."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import cached_property

from .diagnostics import Diagnostic, PDDLError, Severity, quote
from .model import ROOT_TYPE
from .sexpr import SList, Sym, extract_define, snippet
from .source import Limits, read_source


class Reader:
    """Shared state of one domain or problem read: the text and the errors so far."""

    def __init__(self, text: str, stage: str, strict: bool = False, contingent: bool = False):
        self.text = text
        self.stage = stage
        self.strict = strict
        self.contingent = contingent
        self.errors: list[Diagnostic] = []
        self.warnings: list[Diagnostic] = []
        self.implicit_types: dict[str, Diagnostic] = {}  # undeclared type -> its warning
        # an object or constant whose type a tolerated form set -> that form's warning
        self.readings: dict[str, Diagnostic] = {}

    def error(
        self,
        message: str,
        node: SList | Sym | str | None = None,
        cause: Diagnostic | None = None,
    ) -> None:
        """An error at ``node``; ``cause``: the warning of the tolerated form behind it."""
        self.errors.append(replace(self.diagnostic(message, node), cause=cause))

    def warn(self, message: str, node: SList | Sym | str | None = None) -> None:
        self.warnings.append(self.diagnostic(message, node, "warning"))

    def tolerate(self, defect: str, reading: str, node: SList | Sym | str | None = None) -> bool:
        """A form planners accept: a warning saying how it is read, or in strict mode an
        error. True when the caller should go on with ``reading``."""
        if self.strict:
            self.error(defect, node)
            return False
        self.warn(f"{defect}; read as {reading}", node)
        return True

    @cached_property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    def diagnostic(self, message: str, node, severity: Severity = "error") -> Diagnostic:
        line = getattr(node, "line", None)
        text = snippet(self.lines[line - 1]) if line is not None else ""
        return Diagnostic(self.stage, message, line, getattr(node, "col", None), text, severity)

    def raise_if_errors(self) -> None:
        if self.errors:
            raise PDDLError(self.errors)

    def header(self, form: SList, kind: str) -> tuple[str, list]:
        """Check ``(define (KIND name) ...)`` and return the name and the sections."""
        if (
            len(form) < 2
            or not isinstance(form[1], SList)
            or len(form[1]) != 2
            or form[1][0] != kind
            or not isinstance(form[1][1], Sym)
        ):
            self.error(f"expected '(define ({kind} NAME) ...)'", form)
            self.raise_if_errors()
        return form[1][1], form[2:]

    def section_key(self, section) -> str | None:
        if (
            not isinstance(section, SList)
            or not section
            or not isinstance(section[0], Sym)
            or not section[0].startswith(":")
        ):
            self.error("expected a section such as '(:predicates ...)'", section)
            return None
        return section[0]

    def typed_list(
        self, items, *, variables: bool, known_types
    ) -> list[tuple[Sym, tuple[str, ...]]]:
        """``a b - t c`` -> [(a, (t,)), (b, (t,)), (c, (object,))]; checks the types."""
        return [
            (name, types)
            for name, types, _ in self.declarations(
                items, variables=variables, known_types=known_types
            )
        ]

    def declarations(
        self, items, *, variables: bool, known_types
    ) -> list[tuple[Sym, tuple[str, ...], Diagnostic | None]]:
        """:meth:`typed_list`, each name with the warning of the undeclared type its type
        is read from (names only, not variables), or None."""
        result: list[tuple[Sym, tuple[str, ...], Diagnostic | None]] = []
        pending: list[Sym] = []
        i = 0
        while i < len(items):
            item = items[i]
            if item == "-" and isinstance(item, Sym):
                if i + 1 >= len(items):
                    self.error("'-' is not followed by a type", item)
                    break
                types = self.type_ref(items[i + 1], known_types)
                cause = None if variables else self._undeclared_in(items[i + 1])
                result.extend((name, types, cause) for name in pending)
                pending = []
                i += 2
                continue
            if not isinstance(item, Sym):
                self.error("expected a name, found a list", item)
            elif item.startswith("-"):
                self.error(
                    f"{quote(item)}: put a space after '-' to name a type "
                    f"({quote('- ' + item[1:])})",
                    item,
                )
            elif variables and not item.startswith("?"):
                self.error(f"parameter {quote(item)} must start with '?'", item)
            elif not variables and item.startswith("?"):
                self.error(f"{quote(item)} is a variable where a name was expected", item)
            else:
                pending.append(item)
            i += 1
        result.extend((name, (ROOT_TYPE,), None) for name in pending)
        return result

    def type_ref(self, node, known_types) -> tuple[str, ...]:
        if isinstance(node, SList):
            if (
                not node
                or node[0] != "either"
                or len(node) < 2
                or not all(isinstance(t, Sym) for t in node[1:])
            ):
                self.error("a type must be a name or '(either TYPE ...)'", node)
                return (ROOT_TYPE,)
            names = list(node[1:])
        else:
            names = [node]
        return tuple(
            dict.fromkeys(
                name
                if name == ROOT_TYPE or name in known_types
                else self.undeclared_type(name, known_types)
                for name in names
            )
        )

    def _undeclared_in(self, node) -> Diagnostic | None:
        """The warning of an undeclared type that the type ``node`` names, if any."""
        names = node[1:] if isinstance(node, SList) else [node]
        return next(
            (
                self.implicit_types[n]
                for n in names
                if isinstance(n, Sym) and n in self.implicit_types
            ),
            None,
        )

    def undeclared_type(self, name: str, known_types) -> str:
        """The type an undeclared type name stands for. A domain declares it, under
        ``object``, in ``known_types`` (its types, as a dict); a problem reads it as
        ``object``, since nothing in the domain can name it. Warned once per name."""
        declares = self.stage == "domain"
        reading = "a subtype of 'object'" if declares else "'object'"
        if name in self.implicit_types:
            return name if declares else ROOT_TYPE
        if not self.tolerate(f"undeclared type {quote(name)}", reading, name):
            return name
        self.implicit_types[str(name)] = self.warnings[-1]
        if declares:
            known_types[str(name)] = ROOT_TYPE
            return name
        return ROOT_TYPE

    def check_unique(self, names, what: str, taken=()) -> None:
        seen = set(taken)
        for name in names:
            if name in seen:
                self.error(f"duplicate {what} {quote(name)}", name)
            seen.add(name)


_MERGEABLE = frozenset(
    {":requirements", ":types", ":constants", ":predicates", ":functions", ":objects", ":init"}
)


def read_sections(source, stage: str, limits: Limits, strict: bool, contingent: bool = False):
    """(the reader, the ``define`` form, its name, its sections by key) of the ``stage``
    (domain or problem) text or file ``source``; the reader holds the warnings so far."""
    text = read_source(source, stage, limits)
    form, warnings = extract_define(text, stage, limits, strict)
    r = Reader(text, stage, strict, contingent)
    r.warnings.extend(warnings)
    name, sections = r.header(form, stage)
    return r, form, name, _sections(r, sections)


def _sections(r: Reader, sections) -> dict[str, list[SList]]:
    """Section key -> its sections, in order. A repeated section of declarations or facts
    is read as one (a warning; an error when strict); any other repeated section but
    ``:action`` is an error."""
    found: dict[str, list[SList]] = {}
    for section in sections:
        key = r.section_key(section)
        if key is None:
            continue
        if key in found and key != ":action" and not (r.contingent and key in _REPEATED):
            if key not in _MERGEABLE:
                r.error(f"duplicate section {quote(key)}", section)
                continue
            if not r.tolerate(
                f"duplicate section {quote(key)}", "one section holding both", section
            ):
                continue
        found.setdefault(key, []).append(section)
    return found


_REPEATED = frozenset({":sensor", ":variable", ":obs-variable", ":hidden"})  # contingent


def entries(found: dict[str, list[SList]], key: str) -> list:
    """The entries of every ``key`` section, in order."""
    return [item for section in found.get(key, ()) for item in section[1:]]


def count_names(items: list) -> int:
    """How many names a typed list such as ``a b - t c`` declares."""
    return len(items) - 2 * items.count("-")


def ancestors(types: Mapping[str, str], t: str) -> list[str]:
    """``t`` and the types above it in ``types`` (type -> parent), ending with ``object``;
    a cycle ends the chain."""
    chain = [t]
    while chain[-1] in types and len(chain) <= len(types):
        chain.append(types[chain[-1]])
    return chain if chain[-1] == ROOT_TYPE else chain + [ROOT_TYPE]


def has_objects(types: Mapping[str, str], objects: Mapping[str, str], of: tuple[str, ...]) -> bool:
    """Whether some object of ``objects`` has one of the types ``of`` (or a subtype)."""
    return ROOT_TYPE in of or any(
        a in of for t in set(objects.values()) for a in ancestors(types, t)
    )


def declare(
    r: Reader, pairs, types: Mapping[str, str], what: str, taken: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Names -> their single type, from (name, types, cause) (see
    :meth:`Reader.declarations`). A name declared again with the same type, or with a
    subtype or supertype of it, keeps the narrower type (a warning); with an unrelated type
    it is an error. ``taken`` holds names declared elsewhere (the domain's constants, for a
    problem's objects), which may be declared again the same way. ``r.readings`` keeps the
    warning behind each name's type."""
    declared: dict[str, str] = {}
    earlier = dict(taken or {})
    for name, found, cause in pairs:
        if len(found) != 1:
            r.error(f"{quote(name)} cannot have an '(either ...)' type", name)
        new = found[0]
        old = declared.get(name, earlier.get(name))
        if old is not None:
            narrower = _narrower(types, old, new)
            twice = "declared twice" if name in declared else "already a constant of the domain"
            if narrower is None:
                r.error(
                    f"{what} {quote(name)} is {twice}, as {quote(old)} and as {quote(new)}", name
                )
                continue
            if not r.tolerate(
                f"{what} {quote(name)} is {twice}", f"one {what} of type {quote(narrower)}", name
            ):
                continue
            # the type narrowed by this declaration, or kept with what read it
            new, cause = narrower, r.warnings[-1] if narrower != old else None
        declared[str(name)] = new
        if cause is not None:
            r.readings[str(name)] = cause
    return declared


def _narrower(types: Mapping[str, str], a: str, b: str) -> str | None:
    """Of two types, the one that is a subtype of the other, or None."""
    return b if a in ancestors(types, b) else a if b in ancestors(types, a) else None
