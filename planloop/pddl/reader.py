"""PDDL text -> the model, with a diagnostic for every mistake a writer can make.

The reader collects every error it can find in one pass and raises one
:class:`PDDLError` carrying them all; warnings ride on the returned model.

Two readings. The default, planner-compatible one accepts what Fast Downward's
translator or the FF parser accepts when its meaning is unambiguous, gives it that
meaning and records a warning with line and column for each such form (a type listed
among its own subtypes, an undeclared type, a repeated section or declaration, a
negative literal in ``:init``, a requirement it does not support but nothing uses).
An error that follows from such a reading (an object of an undeclared type read as
``object``, then a type mismatch; a name declared twice, narrowed) carries its warning
as its ``cause``. ``strict=True`` refuses each of them as an error, for benchmark
authors. Both refuse what both planners refuse, and what Fast Downward refuses as a
contradiction: a fact both listed (or unknown) and denied in ``:init``.

``contingent=True`` reads the contingent dialect of CLG, SDR and CPOR as well: the
``:contingent`` requirement, sensing actions (``:observe`` atoms or an ``and`` of atoms,
no effect), and an ``:init`` (maybe wrapped in one ``and``) with ``(unknown a)``,
``(oneof l ...)`` and ``(or l ...)`` over literals (``(not a)`` of an atom they name makes
it false); a problem naming another domain is a warning there, as those planners read
it. So are a problem's ``(:hidden atom ...)`` worlds, and the dialects of K-replanner
and cp2fsc, compiled to this one (see :mod:`.dialects`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from functools import cached_property

from . import dialects
from .collection import collection_paused
from .diagnostics import Diagnostic, PDDLError, Severity, quote
from .memo import Memo, text_key
from .model import (
    ROOT_TYPE,
    Action,
    And,
    Atom,
    Domain,
    Effect,
    Equals,
    Exists,
    Forall,
    ForallEffect,
    Formula,
    Imply,
    InitClause,
    Literal,
    Not,
    Or,
    Param,
    Predicate,
    Problem,
    UnreadAction,
    When,
)
from .sexpr import SList, Sym, extract_define, snippet
from .source import DEFAULT_LIMITS, Limits, read_source, source_path

SUPPORTED_REQUIREMENTS = frozenset(
    {
        ":strips",
        ":typing",
        ":negative-preconditions",
        ":disjunctive-preconditions",
        ":equality",
        ":existential-preconditions",
        ":universal-preconditions",
        ":quantified-preconditions",
        ":conditional-effects",
        ":adl",
        ":action-costs",
    }
)
UNSUPPORTED_REQUIREMENTS = frozenset(
    {
        ":durative-actions",
        ":duration-inequalities",
        ":continuous-effects",
        ":numeric-fluents",
        ":fluents",
        ":object-fluents",
        ":derived-predicates",
        ":timed-initial-literals",
        ":preferences",
        ":constraints",
    }
)
_NUMERIC = frozenset(
    {">", "<", ">=", "<=", "assign", "increase", "decrease", "scale-up", "scale-down"}
)
_COST_FUNCTION = "total-cost"


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


class FormulaReader:
    """Reads formulas and effects against a domain's predicates and a set of objects."""

    def __init__(self, reader: Reader, domain_parts, objects: dict[str, str]):
        self.r = reader
        self.types, self.predicates, self.functions = domain_parts
        self.objects = objects
        self.external_constants: dict[str, Sym] = {}
        self._fits: dict[tuple[str, tuple[str, ...]], bool] = {}  # (type, types) -> is in

    def is_subtype(self, t: str, of: tuple[str, ...]) -> bool:
        fits = self._fits.get((t, of))
        if fits is None:
            fits = self._fits[(t, of)] = any(a in of for a in _ancestors(self.types, t))
        return fits

    def term_types(self, term: Sym, scope) -> tuple[str, ...] | None:
        if term.startswith("?"):
            if term not in scope:
                self.r.error(f"undeclared variable {quote(term)}", term)
                return None
            return scope[term]
        if term not in self.objects:
            if self.r.stage == "problem":
                self.r.error(f"undeclared object {quote(term)}", term)
            elif term not in self.external_constants:
                # Fast Downward resolves such names against the problem's objects.
                self.external_constants[term] = term
                self.r.warn(
                    f"undeclared constant {quote(term)}: a problem must declare it as an object",
                    term,
                )
            return None
        return (self.objects[term],)

    def atom(self, node: SList, scope) -> Atom | None:
        name = node[0]
        if not isinstance(name, Sym):
            self.r.error("expected a predicate name", node)
            return None
        if name not in self.predicates:
            self.r.error(f"unknown predicate {quote(name)}", name)
            return None
        args = node[1:]
        if not all(isinstance(a, Sym) for a in args):
            self.r.error(f"arguments of {quote(name)} must be names or variables", node)
            return None
        params = self.predicates[name].params
        if len(args) != len(params):
            self.r.error(
                f"wrong arity: {quote(name)} takes {len(params)} argument(s), {len(args)} given",
                name,
            )
            return None
        for arg, param in zip(args, params, strict=True):
            types = self.term_types(arg, scope)
            if types is None:
                continue
            if any(self.is_subtype(t, param.types) for t in types) or (
                arg.startswith("?") and ROOT_TYPE in types
            ):
                continue  # FF too lets a variable of type 'object' fill any argument
            defect = (
                f"type mismatch: {quote(arg)} is {' or '.join(types)} but {quote(name)} "
                f"expects {' or '.join(param.types)}"
            )
            if arg.startswith("?") and self.r.stage == "domain":
                self.r.warn(defect, arg)  # Fast Downward grounds it all the same
            else:
                self.r.error(defect, arg, self.r.readings.get(arg))
        return Atom(name, tuple(args))

    def params(self, node, scope) -> tuple[tuple[Param, ...], dict]:
        if not isinstance(node, SList):
            self.r.error("expected a parenthesized list of variables", node)
            return (), scope
        pairs = self.r.typed_list(node, variables=True, known_types=self.types)
        self.r.check_unique([p for p, _ in pairs], "parameter")
        inner = dict(scope)
        inner.update({name: types for name, types in pairs})
        return tuple(Param(str(n), t) for n, t in pairs), inner

    def formula(self, node, scope) -> Formula:
        if isinstance(node, Sym) or not node:
            if isinstance(node, SList):
                return And(())
            self.r.error(f"expected a condition in parentheses, found {quote(node)}", node)
            return And(())
        head = node[0]
        if not isinstance(head, Sym):
            self.r.error("expected a predicate or connective after '(', found a list", head)
            return And(())
        if head == "and" or head == "or":
            parts = tuple(self.formula(x, scope) for x in node[1:])
            return And(parts) if head == "and" else Or(parts)
        if head == "not":
            if len(node) != 2:
                self.r.error("'not' takes exactly one condition", node)
                return And(())
            return Not(self.formula(node[1], scope))
        if head == "imply":
            if len(node) != 3:
                self.r.error("'imply' takes exactly two conditions", node)
                return And(())
            return Imply(self.formula(node[1], scope), self.formula(node[2], scope))
        if head in ("exists", "forall"):
            if len(node) != 3:
                self.r.error(f"{quote(head)} takes a variable list and one condition", node)
                return And(())
            params, inner = self.params(node[1], scope)
            body = self.formula(node[2], inner)
            return Exists(params, body) if head == "exists" else Forall(params, body)
        if head == "=":
            if len(node) != 3 or not all(isinstance(a, Sym) for a in node[1:]):
                if len(node) == 3 and any(isinstance(a, SList) for a in node[1:]):
                    self.r.error("numeric comparisons are not supported", node)
                else:
                    self.r.error("'=' takes exactly two terms", node)
                return And(())
            for term in node[1:]:
                self.term_types(term, scope)
            return Equals(node[1], node[2])
        if head in _NUMERIC:
            self.r.error(f"numeric condition {quote(head)} is not supported", node)
            return And(())
        atom = self.atom(node, scope)
        return atom if atom is not None else And(())

    def effect(self, node, scope) -> list[Effect]:
        if isinstance(node, Sym):
            self.r.error(f"expected an effect in parentheses, found {quote(node)}", node)
            return []
        if not node:
            return []
        head = node[0]
        if not isinstance(head, Sym):
            self.r.error(
                "expected a predicate or 'and', 'not', 'when', 'forall' after '(', found a list",
                head,
            )
            return []
        if head == "and":
            return [e for x in node[1:] for e in self.effect(x, scope)]
        if head == "not":
            if (
                len(node) != 2
                or not isinstance(node[1], SList)
                or not node[1]
                or node[1][0] in ("and", "not", "when", "forall")
            ):
                self.r.error("'not' in an effect takes exactly one atom", node)
                return []
            atom = self.atom(node[1], scope)
            return [Literal(atom, negated=True)] if atom else []
        if head == "when":
            if len(node) != 3:
                self.r.error("'when' takes a condition and an effect", node)
                return []
            return [When(self.formula(node[1], scope), tuple(self.effect(node[2], scope)))]
        if head == "forall":
            if len(node) != 3:
                self.r.error("'forall' takes a variable list and an effect", node)
                return []
            params, inner = self.params(node[1], scope)
            return [ForallEffect(params, tuple(self.effect(node[2], inner)))]
        if (
            head == "increase"
            and len(node) == 3
            and isinstance(node[1], SList)
            and list(node[1]) == [_COST_FUNCTION]
        ):
            return []  # action costs do not change what is applicable
        if head in _NUMERIC:
            self.r.error(
                f"numeric effect {quote(head)} is not supported (only "
                f"'(increase (total-cost) ...)')",
                node,
            )
            return []
        if head in ("or", "exists", "imply", "="):
            self.r.error(f"{quote(head)} is not allowed in an effect", node)
            return []
        if head in ("oneof", "probabilistic"):
            kind = "non-deterministic" if head == "oneof" else "probabilistic"
            self.r.error(f"{kind} effects ({quote(head)}) are not supported", node)
            return []
        atom = self.atom(node, scope)
        return [Literal(atom)] if atom else []


_MERGEABLE = frozenset(
    {":requirements", ":types", ":constants", ":predicates", ":functions", ":objects", ":init"}
)


def _read_sections(source, stage: str, limits: Limits, strict: bool, contingent: bool = False):
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


def _body(found: dict[str, list[SList]], key: str) -> list:
    """The entries of every ``key`` section, in order."""
    return [item for section in found.get(key, ()) for item in section[1:]]


DOMAINS: Memo[Domain] = Memo()
PROBLEMS: Memo[tuple[Domain, Problem]] = Memo()


def _as_read(
    source: str | os.PathLike, stage: str, limits: Limits
) -> tuple[str | os.PathLike, str | None]:
    """``source`` and its memo key: for a file, its text (read once, within ``limits``)
    and that text's hash; for text, itself and its hash; else ``source`` and None (the
    reading then says what is wrong)."""
    if source_path(source) is None:
        return source, text_key(source)
    try:
        text = read_source(source, stage, limits)
    except PDDLError:
        return source, None
    key = text_key(text)
    return (source, None) if key is None else (text, key)


def parse_domain(
    source: str | os.PathLike,
    limits: Limits = DEFAULT_LIMITS,
    strict: bool = False,
    contingent: bool = False,
) -> Domain:
    """Read a domain from a path or from PDDL text; ``strict`` refuses what planners
    tolerate, ``contingent`` reads sensing actions (see the module's docstring). The same
    text read the same way again is the same Domain (:data:`DOMAINS`, an LRU), a file's
    by its contents."""
    source, key = _as_read(source, "domain", limits)
    if key is None:
        return _read_domain(source, limits, strict, contingent)
    return DOMAINS.get(
        (key, limits, strict, contingent), lambda: _read_domain(source, limits, strict, contingent)
    )


@collection_paused()
def _read_domain(
    source: str | os.PathLike, limits: Limits, strict: bool, contingent: bool
) -> Domain:
    r, form, name, found = _read_sections(source, "domain", limits, strict, contingent)
    for key, parts in found.items():
        if key not in (
            ":requirements",
            ":types",
            ":constants",
            ":predicates",
            ":functions",
            ":action",
        ) and not (contingent and key in _DIALECT_DOMAIN):
            what = "derived predicates are" if key == ":derived" else f"section {quote(key)} is"
            r.error(f"{what} not supported", parts[0])
    requirements = _requirements(r, _body(found, ":requirements"))
    body = _body(found, ":types")
    limits.check("max_types", _count_names(body), "domain", "types")
    types = _types(r, body, limits)
    body = _body(found, ":constants")
    limits.check("max_objects", _count_names(body), "domain", "constants")
    constants = _declare(
        r, r.declarations(body, variables=False, known_types=types), types, "constant"
    )
    predicates = _predicates(r, _body(found, ":predicates"), types)
    functions = tuple(str(n[0]) for n in _body(found, ":functions") if isinstance(n, SList) and n)
    fr = FormulaReader(r, (types, predicates, functions), constants)
    actions: dict[str, Action] = {}
    unread: list[UnreadAction] = []
    models: dict = {}  # an action's sensing model: its rules and scope
    for node in found.get(":action", []) + found.get(":sensor", []):
        before = len(r.errors)
        if node[0] == ":sensor":
            action = dialects.read_sensor(r, fr, node)
        else:
            action = _read_action(r, fr, node, models)
        if action is None:
            continue
        if action.name in actions:
            r.error(f"duplicate action {quote(action.name)}", node[1])
        empty = [p.types for p in action.params if not _has_objects(types, constants, p.types)]
        if len(r.errors) > before and empty and not r.strict:
            unread.append(_leave_out(r, action, before, empty[0]))
            continue
        actions[action.name] = action
    for node in found.get(":default-sensing-model", [])[:1]:  # cp2fsc: each action's but
        if len(node) != 2:  # those with a sensing model of their own or an ':observe'
            r.error("expected '(:default-sensing-model RULES)'", node)
            continue
        rules = dialects.rules(r, fr, node[1], {}, "a ':default-sensing-model'")
        for name, action in actions.items():
            if name not in models and not action.observe:
                models[name] = (rules, {})
    variables, derived = _read_variables(r, fr, found, actions, models, predicates)
    r.raise_if_errors()
    return Domain(
        str(name),
        requirements,
        types,
        constants,
        predicates,
        actions,
        functions,
        tuple(fr.external_constants),
        tuple(r.warnings),
        tuple(unread),
        variables=variables,
        derived=derived,
    )


_DIALECT_DOMAIN = (":sensor", ":variable", ":obs-variable", ":default-sensing-model")


def _read_variables(r: Reader, fr: FormulaReader, found, actions, models, predicates):
    """cp2fsc's ``:variable`` and ``:obs-variable`` sections, and the sensing models of
    ``actions`` compiled (replacing ``actions``' entries): (the state variables, the
    facts the observations define)."""
    variables, observable = [], set()
    names: set[str] = set()
    for key in (":variable", ":obs-variable"):
        for node in found.get(key, []):
            variable = dialects.read_variable(r, fr, node)
            if variable is None:
                continue
            if variable.name in names:
                where = node[1][0] if isinstance(node[1], SList) else node[1]
                r.error(f"duplicate variable {quote(variable.name)}", where)
                continue
            names.add(variable.name)
            if key == ":obs-variable":
                observable |= {value.atom.predicate for value in variable.values}
            else:
                variables.append((variable, node))
    moving = {v.atom.predicate for variable, _ in variables for v in variable.values}
    moving |= observable | {
        lit.atom.predicate for a in actions.values() for lit in dialects.effect_literals(a.effects)
    }
    fixed = set(predicates) - moving
    for variable, node in variables:
        dialects.check_values(r, variable, node, fixed)
    compiled, derived = dialects.compile_sensing(r, actions, models, observable, fixed)
    actions.clear()
    actions.update(compiled)
    return tuple(v for v, _ in variables), derived


def _leave_out(r: Reader, action: Action, before: int, empty: tuple[str, ...]) -> UnreadAction:
    """Move the errors since ``before`` into an UnreadAction (FF's reading of an action
    whose parameter type ``empty`` no constant has), with a warning for the first."""
    errors = tuple(r.errors[before:])
    del r.errors[before:]
    first = errors[0]
    r.warnings.append(
        replace(
            first,
            severity="warning",
            message=(
                f"{first.message}; read as no action {quote(action.name)}, as FF reads it while no "
                f"object has type {quote(' or '.join(empty))}"
            ),
        )
    )
    return UnreadAction(action.name, tuple(p.types for p in action.params), errors)


def _ancestors(types: Mapping[str, str], t: str) -> list[str]:
    """``t`` and the types above it in ``types`` (type -> parent), ending with ``object``;
    a cycle ends the chain."""
    chain = [t]
    while chain[-1] in types and len(chain) <= len(types):
        chain.append(types[chain[-1]])
    return chain if chain[-1] == ROOT_TYPE else chain + [ROOT_TYPE]


def _has_objects(types: Mapping[str, str], objects: Mapping[str, str], of: tuple[str, ...]) -> bool:
    """Whether some object of ``objects`` has one of the types ``of`` (or a subtype)."""
    return ROOT_TYPE in of or any(
        a in of for t in set(objects.values()) for a in _ancestors(types, t)
    )


def _requirements(r: Reader, body) -> tuple[str, ...]:
    requirements = []
    for req in body:
        if not isinstance(req, Sym):
            r.error("expected a requirement such as ':strips', found a list", req)
        elif req in SUPPORTED_REQUIREMENTS or (r.contingent and req == ":contingent"):
            requirements.append(str(req))
        else:
            defect = "unsupported" if req in UNSUPPORTED_REQUIREMENTS else "unknown"
            # what it would allow is refused where it is used
            r.tolerate(
                f"{defect} requirement {quote(req)}",
                "not required: what it adds is refused where it is used",
                req,
            )
    return tuple(dict.fromkeys(requirements))


def _types(r: Reader, body, limits: Limits) -> dict[str, str]:
    """Each declared type -> its parent. A type listed among its own subtypes is a type of
    its own; a parent never declared is a subtype of ``object``; a type declared twice
    under one parent (or under ``object`` and a parent) is declared once."""
    types: dict[str, str] = {}
    pairs = r.typed_list(body, variables=False, known_types=_AnyType())
    for type_name, parents in pairs:
        if len(parents) != 1:
            r.error("a type's parent cannot be '(either ...)'", type_name)
        parent, old = parents[0], types.get(type_name)
        if type_name == ROOT_TYPE:
            continue
        if parent == type_name:
            r.tolerate(
                f"type {quote(type_name)} is listed among its own subtypes",
                "a type of its own",
                type_name,
            )
            types.setdefault(str(type_name), ROOT_TYPE)
        elif old is not None and ROOT_TYPE not in (old, parent) and old != parent:
            r.error(
                f"type {quote(type_name)} is declared twice, under {quote(old)} and under "
                f"{quote(parent)}",
                type_name,
            )
        elif old is None or r.tolerate(
            f"duplicate type {quote(type_name)}", "one declaration", type_name
        ):
            types[str(type_name)] = parent if old in (None, ROOT_TYPE) else old
    for parent in dict.fromkeys(parents[0] for _, parents in pairs):
        if parent != ROOT_TYPE and parent not in types:
            r.undeclared_type(parent, types)
    _check_type_depth(r, types, body, limits)
    return types


def _declare(
    r: Reader, pairs, types: Mapping[str, str], what: str, taken: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Names -> their single type, from (name, types, cause) (see ``declarations``). A name
    declared again with the same type, or with a subtype or supertype of it, keeps the
    narrower type (a warning); with an unrelated type it is an error. ``taken`` holds names
    declared elsewhere (the domain's constants, for a problem's objects), which may be
    declared again the same way. ``r.readings`` keeps the warning behind each name's type."""
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
    return b if a in _ancestors(types, b) else a if b in _ancestors(types, a) else None


def _predicates(r: Reader, body, types: dict[str, str]) -> dict[str, Predicate]:
    predicates: dict[str, Predicate] = {}
    for node in body:
        if not isinstance(node, SList) or not node or not isinstance(node[0], Sym):
            r.error("expected a predicate declaration '(name ?x ...)'", node)
            continue
        pairs = r.typed_list(node[1:], variables=True, known_types=types)
        predicate = Predicate(str(node[0]), tuple(Param(str(n), t) for n, t in pairs))
        if node[0] in predicates:
            if [p.types for p in predicates[node[0]].params] != [p.types for p in predicate.params]:
                r.error(
                    f"predicate {quote(node[0])} is declared twice, with different arguments",
                    node[0],
                )
            else:
                r.tolerate(f"duplicate predicate {quote(node[0])}", "one declaration", node[0])
            continue
        predicates[str(node[0])] = predicate
    return predicates


class _AnyType:
    """Accepts every type name: in ':types' a parent may be declared later."""

    def __contains__(self, item) -> bool:
        return True


def _check_type_depth(r: Reader, types: dict[str, str], body, limits: Limits) -> None:
    """An error for each cycle of parents (``a - b``, ``b - a``), naming its types once;
    :class:`PDDLError` for a type more than ``limits.max_type_depth`` deep. Each type is
    walked once."""
    nodes: dict[str, Sym] = {}
    for node in body:
        if isinstance(node, Sym):
            nodes.setdefault(str(node), node)
    depth: dict[str, int] = {}  # types above each type; -1 on a cycle
    for start in types:
        path, on_path, t = [], set(), start
        while t in types and t not in depth and t not in on_path:
            path.append(t)
            on_path.add(t)
            t = types[t]
        if t in on_path:
            cycle = path[path.index(t) :]
            r.error(
                f"the types {', '.join(quote(c) for c in cycle)} are each other's "
                f"ancestors ({' - '.join(cycle + [t])})",
                nodes.get(cycle[0]),
            )
            depth.update((c, -1) for c in cycle)
            path = path[: path.index(t)]
        above = depth.get(t, 0)
        for n in reversed(path):
            above = -1 if above < 0 else above + 1
            depth[n] = above
        if depth[start] > limits.max_type_depth:
            r.errors.append(
                r.diagnostic(
                    limits.exceeded(
                        "max_type_depth", f"type {quote(start)} has {depth[start]:,} types above it"
                    ),
                    nodes.get(start),
                )
            )
            r.raise_if_errors()


def _read_action(
    r: Reader, fr: FormulaReader, node: SList, models: dict | None = None
) -> Action | None:
    """An action; in the contingent reading, a ``:sensing-model``'s rules and scope go
    to ``models`` (name -> them) for :func:`.dialects.compile_sensing`."""
    if len(node) < 2 or not isinstance(node[1], Sym):
        r.error("expected '(:action NAME ...)'", node)
        return None
    name = node[1]
    fields: dict[str, object] = {}
    items = node[2:]
    i = 0
    while i < len(items):
        key = items[i]
        if not isinstance(key, Sym) or not key.startswith(":"):
            r.error(
                f"expected ':parameters', ':precondition' or ':effect' in action {quote(name)}", key
            )
            return None
        if i + 1 >= len(items):
            r.error(f"{quote(key)} of action {quote(name)} has no value", key)
            return None
        value, i = items[i + 1], i + 2
        if r.contingent and key == ":observe":  # atoms, maybe several without an 'and'
            value = [value]
            while i < len(items) and not (isinstance(items[i], Sym) and items[i].startswith(":")):
                value.append(items[i])
                i += 1
        if key not in (":parameters", ":precondition", ":effect") and not (
            r.contingent and key in (":observe", ":sensing-model")
        ):
            r.error(f"unsupported action field {quote(key)}", key)
            continue
        if key in fields:
            r.error(f"duplicate {quote(key)} in action {quote(name)}", key)
        fields[str(key)] = value
    params, scope = fr.params(fields.get(":parameters", SList()), {})
    precondition = (
        fr.formula(fields[":precondition"], scope) if ":precondition" in fields else And(())
    )
    if ":observe" in fields:
        if ":effect" in fields:
            r.error(
                f"sensing action {quote(name)} has an ':effect': a sensing action only observes",
                name,
            )
        if ":sensing-model" in fields:
            r.error(f"action {quote(name)} has both ':observe' and ':sensing-model'", name)
        return Action(
            str(name),
            params,
            precondition,
            (),
            dialects.observed(r, fr, fields[":observe"], scope),  # type: ignore[arg-type]
        )
    if ":sensing-model" in fields and models is not None:
        models[str(name)] = (
            dialects.rules(r, fr, fields[":sensing-model"], scope, "a ':sensing-model'"),
            scope,
        )
    elif ":effect" not in fields:
        r.error(f"action {quote(name)} has no ':effect'", name)
    effects = fr.effect(fields[":effect"], scope) if ":effect" in fields else []
    return Action(str(name), params, precondition, tuple(effects))


_CONNECTIVES = dialects.CONNECTIVES


def parse_problem(
    source: str | os.PathLike,
    domain: Domain,
    limits: Limits = DEFAULT_LIMITS,
    strict: bool = False,
    contingent: bool = False,
) -> Problem:
    """Read a problem of ``domain`` from a path or from PDDL text; ``strict`` refuses what
    planners tolerate, ``contingent`` reads unknown facts and the constraints on them (see
    the module's docstring). The same text read against the same Domain object the same
    way again is the same Problem (:data:`PROBLEMS`, an LRU), a file's by its contents."""
    source, key = _as_read(source, "problem", limits)
    if key is None:
        return _read_problem(source, domain, limits, strict, contingent)
    kept, problem = PROBLEMS.get(
        (key, id(domain), limits, strict, contingent),
        lambda: (domain, _read_problem(source, domain, limits, strict, contingent)),
    )
    if kept is not domain:  # another domain since freed, at the same address
        return _read_problem(source, domain, limits, strict, contingent)
    return problem


@collection_paused()
def _read_problem(
    source: str | os.PathLike, domain: Domain, limits: Limits, strict: bool, contingent: bool
) -> Problem:
    r, form, name, found = _read_sections(source, "problem", limits, strict, contingent)
    for key, parts in found.items():
        if key not in (
            ":domain",
            ":objects",
            ":init",
            ":goal",
            ":metric",
            ":requirements",
        ) and not (contingent and key in (":hidden", ":constants")):
            r.error(f"section {quote(key)} is not supported in a problem", parts[0])
    domain_name = _domain_name(r, found.get(":domain"), domain, form)
    body = _body(found, ":objects")
    if ":constants" in found and r.tolerate(
        "':constants' in a problem", "':objects'", found[":constants"][0]
    ):
        body += _body(found, ":constants")  # K-replanner's problems declare them so
    limits.check("max_objects", _count_names(body), "problem", "objects")
    objects = _declare(
        r,
        r.declarations(body, variables=False, known_types=domain.types),
        domain.types,
        "object",
        taken=domain.constants,
    )
    for constant in domain.external_constants:
        if constant not in objects:
            r.error(
                f"the domain's actions use {quote(constant)}, which is declared neither as a "
                f"constant of the domain nor as an object of the problem",
                form,
            )
    init_nodes = _body(found, ":init")
    if (
        contingent
        and len(init_nodes) == 1
        and isinstance(init_nodes[0], SList)
        and init_nodes[0]
        and init_nodes[0][0] == "and"
    ):
        init_nodes = init_nodes[0][1:]
    limits.check("max_init_facts", len(init_nodes), "problem", "facts in ':init'")
    if ":init" not in found:
        r.error("missing ':init' section", form)
    goal_node = _goal_node(r, found.get(":goal"), form)
    if goal_node is not None:
        limits.check("max_goal_size", _count_lists(goal_node), "problem", "conditions in ':goal'")
    everything = dict(domain.constants)
    everything.update(objects)
    for action in domain.unread_actions:  # the domain's errors, where the domain has them
        if all(_has_objects(domain.types, everything, t) for t in action.param_types):
            r.errors.extend(action.errors)
    fr = FormulaReader(r, (domain.types, domain.predicates, domain.functions), everything)
    unknown: dict[Atom, SList] = {}
    clauses: list[InitClause] = []
    if contingent:
        init_nodes = _read_uncertain(r, fr, init_nodes, unknown, clauses)
    init, denied = _read_init(r, fr, init_nodes, unknown, clauses)
    if contingent and (domain.variables or domain.derived):
        expansion = dialects.Expansion(domain, everything)
        limits.check(
            "max_expansion",
            expansion.count(),
            "problem",
            "bindings of the domain's ':variable' values and defined facts",
        )
        _read_variables_init(expansion, init, denied, unknown, clauses)
    goal = fr.formula(goal_node, {}) if goal_node is not None else And(())
    hidden = hidden_worlds(r, fr, found.get(":hidden", []))
    r.raise_if_errors()
    return Problem(
        str(name),
        str(domain_name),
        objects,
        tuple(init),
        goal,
        tuple(r.warnings),
        tuple(unknown),
        tuple(clauses),
        tuple(hidden),
    )


def _read_variables_init(expansion: dialects.Expansion, init, denied, unknown, clauses) -> None:
    """Add the initial constraints of the domain's variables and defined facts over the
    problem's objects to ``unknown`` and ``clauses`` (see :mod:`.dialects`)."""
    listed = set(init)
    more, free = dialects.variable_init(expansion, listed, set(denied))
    clauses += more
    unknown.update((atom, SList()) for atom in free)
    uncertain = set(unknown) | {lit.atom for c in clauses for lit in c.literals}
    more, true = dialects.derived_init(expansion, listed, uncertain)
    clauses += more
    init += [atom for atom in true if atom not in listed]


def hidden_worlds(r: Reader, fr: FormulaReader, sections) -> list[tuple[Atom, ...]]:
    """The worlds of ``(:hidden atom ...)`` sections: each lists the atoms true in one
    world (a ``(not atom)`` says what is false anyway)."""
    worlds = []
    for section in sections:
        atoms = []
        for node in section[1:]:
            negated = isinstance(node, SList) and len(node) == 2 and node[0] == "not"
            inner = node[1] if negated else node
            if not isinstance(inner, SList) or not inner or inner[0] in _CONNECTIVES:
                r.error("':hidden' lists atoms and '(not atom)'", node)
                continue
            atom = fr.atom(inner, {})
            if atom is not None and not negated:
                atoms.append(atom)
        worlds.append(tuple(dict.fromkeys(atoms)))
    return worlds


def _domain_name(r: Reader, sections, domain: Domain, form) -> str | None:
    if not sections:
        r.error("missing '(:domain NAME)'", form)
        return None
    section = sections[0]
    if len(section) != 2 or not isinstance(section[1], Sym):
        r.error("expected '(:domain NAME)'", section)
        return None
    if section[1] != domain.name:
        message = (
            f"the problem is for domain {quote(section[1])} but the domain is {quote(domain.name)}"
        )
        if not r.contingent:
            r.error(message, section[1])
        else:  # contingent planners (CLG, CPOR, unified-planning) ignore the name
            r.tolerate(message, f"a problem of {quote(domain.name)}", section[1])
    return section[1]


def _goal_node(r: Reader, sections, form):
    if not sections:
        r.error("missing ':goal' section", form)
        return None
    section = sections[0]
    if len(section) != 2:
        r.error("':goal' takes exactly one condition", section)
    return section[1] if len(section) > 1 else SList()


def _read_uncertain(
    r: Reader,
    fr: FormulaReader,
    nodes,
    unknown: dict[Atom, SList],
    clauses: list[InitClause],
) -> list:
    """Read the ``unknown``, ``oneof`` and ``or`` entries of a contingent ``:init``, and
    K-replanner's invariants (see :mod:`.dialects`), into ``unknown`` (atom -> its first
    entry) and ``clauses``; the other entries, for :func:`_read_init`."""
    rest = []
    invariant: dict[Atom, bool] = {}  # an atom of an invariant -> whether one names it positive
    for node in nodes:
        head = node[0] if isinstance(node, SList) and node else None
        if head == "unknown":
            if (
                len(node) != 2
                or not isinstance(node[1], SList)
                or not node[1]
                or node[1][0] in _CONNECTIVES
            ):
                r.error("'unknown' takes exactly one atom", node)
                continue
            atom = fr.atom(node[1], {})
            if atom is not None:
                unknown.setdefault(atom, node)
        elif head in ("oneof", "or"):
            literals = [_init_literal(r, fr, part) for part in node[1:]]
            if not literals:
                r.error(f"{quote(head)} takes at least one literal", node)
            elif None not in literals:
                read = [literal for literal in literals if literal is not None]  # all of them
                clauses.append(InitClause(str(head), tuple(read)))
        elif head in dialects.INVARIANTS:
            literals = [_init_literal(r, fr, part, head) for part in node[1:]]
            if not literals:
                r.error(f"{quote(head)} takes at least one literal", node)
            elif None not in literals:
                read = [literal for literal in literals if literal is not None]  # all of them
                clauses.append(InitClause(dialects.INVARIANTS[head], tuple(read)))
                for lit in read:
                    invariant[lit.atom] = invariant.get(lit.atom, False) or not lit.negated
        else:
            rest.append(node)
    named = set(unknown) | {lit.atom for c in clauses for lit in c.literals if not lit.negated}
    named |= {  # and the facts listed
        Atom(str(n[0]), tuple(map(str, n[1:])))
        for n in rest
        if isinstance(n, SList) and n and all(isinstance(t, Sym) for t in n)
    }
    clauses += [
        InitClause("or", (Literal(atom, True),))
        for atom, positive in invariant.items()
        if not positive and atom not in named
    ]
    return rest


def _init_literal(r: Reader, fr: FormulaReader, node, head: str = "") -> Literal | None:
    """An atom or ``(not atom)`` of a ``oneof``, an ``or`` or an invariant ``head`` in
    ``:init``."""
    negated = isinstance(node, SList) and len(node) == 2 and node[0] == "not"
    inner = node[1] if negated else node
    if not isinstance(inner, SList) or not inner or inner[0] in _CONNECTIVES:
        what = f"{quote(head)} in ':init' takes" if head else "'oneof' and 'or' in ':init' take"
        r.error(f"{what} atoms and '(not atom)'", node)
        return None
    atom = fr.atom(inner, {})
    return None if atom is None else Literal(atom, negated)


def _read_init(
    r: Reader, fr: FormulaReader, nodes, unknown: dict[Atom, SList], clauses: list[InitClause]
) -> tuple[list[Atom], list[Atom]]:
    """The facts of ``:init`` and the atoms it denies. A negative literal is read as
    nothing (a warning; an error when strict), but one denying an atom of ``clauses`` makes
    it false (a clause of its own); one denying a fact the section lists, or one of
    ``unknown`` (atom -> its ``(unknown ...)``), is an error in every reading, as Fast
    Downward refuses it."""
    listed: dict[Atom, SList] = {}
    denied: list[tuple[Atom, SList]] = []
    for node in nodes:
        if not isinstance(node, SList) or not node:
            r.error("expected a fact '(predicate object ...)'", node)
            continue
        if node[0] == "=" and len(node) == 3 and isinstance(node[1], SList):
            continue  # a numeric fluent's value, such as (= (total-cost) 0)
        if node[0] == "not" and len(node) == 2 and isinstance(node[1], SList):
            atom = fr.atom(node[1], {})
            if atom is not None:
                denied.append((atom, node))
            continue
        if node[0] in ("not", "and", "or", "forall", "exists", "="):
            r.error(f"':init' holds only facts, found {quote(node[0])}", node)
            continue
        atom = fr.atom(node, {})
        if atom is not None:
            listed.setdefault(atom, node)
    constrained = {lit.atom for c in clauses for lit in c.literals}
    for atom, node in denied:
        if atom in listed:
            _contradiction(r, atom, "true", listed[atom], node)
        elif atom in unknown:
            _contradiction(r, atom, "unknown", unknown[atom], node)
        elif atom in constrained:
            clauses.append(InitClause("or", (Literal(atom, True),)))
        else:
            r.tolerate(
                "a negative literal in ':init'",
                "nothing: what ':init' does not list is false",
                node,
            )
    return list(listed), [atom for atom, _ in denied]


def _contradiction(r: Reader, atom: Atom, how: str, said: SList, denial: SList) -> None:
    """The error for ``atom``, ``how`` (true or unknown) at ``said`` and false at
    ``denial``, placed at the later of the two and naming the other's place."""
    first, second = sorted((said, denial), key=lambda n: (n.line, n.col))
    r.error(
        f"{quote(str(atom))} is both {how} and false in ':init' (also at line {first.line}, "
        f"col {first.col})",
        second,
    )


def _count_names(items: list) -> int:
    """How many names a typed list such as ``a b - t c`` declares."""
    return len(items) - 2 * items.count("-")


def _count_lists(node) -> int:
    """How many parenthesized lists ``node`` is and holds, at any depth."""
    count, todo = 0, [node]
    while todo:
        item = todo.pop()
        if isinstance(item, SList):
            count += 1
            todo.extend(item)
    return count


def parse(
    domain: str | os.PathLike,
    problem: str | os.PathLike,
    limits: Limits = DEFAULT_LIMITS,
    strict: bool = False,
    contingent: bool = False,
) -> tuple[Domain, Problem]:
    """Read a domain and one of its problems (paths or PDDL text); ``strict`` refuses what
    planners tolerate, ``contingent`` reads the contingent dialect (see the module's
    docstring)."""
    d = parse_domain(domain, limits, strict, contingent)
    return d, parse_problem(problem, d, limits, strict, contingent)
