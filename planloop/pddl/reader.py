"""PDDL text -> the model, with a diagnostic for every mistake a writer can make.

The reader collects every error it can find in one pass and raises one
:class:`PDDLError` carrying them all; warnings (prose around the PDDL) ride on the
returned model.
"""

from __future__ import annotations

import os
from functools import cached_property

from .diagnostics import Diagnostic, PDDLError, quote
from .model import (
    ROOT_TYPE, Action, And, Atom, Domain, Effect, Equals, Exists, Forall, ForallEffect, Formula,
    Imply, Literal, Not, Or, Param, Predicate, Problem, When,
)
from .sexpr import SList, Sym, extract_define, snippet
from .source import Limits, read_source

SUPPORTED_REQUIREMENTS = frozenset({
    ":strips", ":typing", ":negative-preconditions", ":disjunctive-preconditions", ":equality",
    ":existential-preconditions", ":universal-preconditions", ":quantified-preconditions",
    ":conditional-effects", ":adl", ":action-costs",
})
UNSUPPORTED_REQUIREMENTS = frozenset({
    ":durative-actions", ":duration-inequalities", ":continuous-effects", ":numeric-fluents",
    ":fluents", ":object-fluents", ":derived-predicates", ":timed-initial-literals",
    ":preferences", ":constraints",
})
_NUMERIC = frozenset({">", "<", ">=", "<=", "assign", "increase", "decrease", "scale-up",
                      "scale-down"})
_COST_FUNCTION = "total-cost"


class _Reader:
    """Shared state of one domain or problem read: the text and the errors so far."""

    def __init__(self, text: str, stage: str):
        self.text = text
        self.stage = stage
        self.errors: list[Diagnostic] = []
        self.warnings: list[Diagnostic] = []

    def error(self, message: str, node: SList | Sym | None = None) -> None:
        self.errors.append(self._diagnostic(message, node, "error"))

    def warn(self, message: str, node: SList | Sym | None = None) -> None:
        self.warnings.append(self._diagnostic(message, node, "warning"))

    @cached_property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    def _diagnostic(self, message: str, node, severity: str) -> Diagnostic:
        line = getattr(node, "line", None)
        text = snippet(self.lines[line - 1]) if line is not None else ""
        return Diagnostic(self.stage, message, line, getattr(node, "col", None), text, severity)

    def raise_if_errors(self) -> None:
        if self.errors:
            raise PDDLError(self.errors)

    def header(self, form: SList, kind: str) -> tuple[str, list]:
        """Check ``(define (KIND name) ...)`` and return the name and the sections."""
        if len(form) < 2 or not isinstance(form[1], SList) or len(form[1]) != 2 \
                or form[1][0] != kind or not isinstance(form[1][1], Sym):
            self.error(f"expected '(define ({kind} NAME) ...)'", form)
            self.raise_if_errors()
        return form[1][1], form[2:]

    def section_key(self, section) -> str | None:
        if not isinstance(section, SList) or not section or not isinstance(section[0], Sym) \
                or not section[0].startswith(":"):
            self.error("expected a section such as '(:predicates ...)'", section)
            return None
        return section[0]

    def typed_list(self, items, *, variables: bool, known_types) -> list[tuple[Sym, tuple[str, ...]]]:
        """``a b - t c`` -> [(a, (t,)), (b, (t,)), (c, (object,))]; checks the types."""
        result, pending = [], []
        i = 0
        while i < len(items):
            item = items[i]
            if item == "-" and isinstance(item, Sym):
                if i + 1 >= len(items):
                    self.error("'-' is not followed by a type", item)
                    break
                types = self.type_ref(items[i + 1], known_types)
                result.extend((name, types) for name in pending)
                pending = []
                i += 2
                continue
            if not isinstance(item, Sym):
                self.error("expected a name, found a list", item)
            elif item.startswith("-"):
                self.error(f"{quote(item)}: put a space after '-' to name a type "
                           f"({quote('- ' + item[1:])})", item)
            elif variables and not item.startswith("?"):
                self.error(f"parameter {quote(item)} must start with '?'", item)
            elif not variables and item.startswith("?"):
                self.error(f"{quote(item)} is a variable where a name was expected", item)
            else:
                pending.append(item)
            i += 1
        result.extend((name, (ROOT_TYPE,)) for name in pending)
        return result

    def type_ref(self, node, known_types) -> tuple[str, ...]:
        if isinstance(node, SList):
            if not node or node[0] != "either" or len(node) < 2 or \
                    not all(isinstance(t, Sym) for t in node[1:]):
                self.error("a type must be a name or '(either TYPE ...)'", node)
                return (ROOT_TYPE,)
            names = list(node[1:])
        else:
            names = [node]
        for name in names:
            if name not in known_types:
                self.error(f"undeclared type {quote(name)}", name)
        return tuple(names)

    def check_unique(self, names, what: str, taken=()) -> None:
        seen = set(taken)
        for name in names:
            if name in seen:
                self.error(f"duplicate {what} {quote(name)}", name)
            seen.add(name)


class _FormulaReader:
    """Reads formulas and effects against a domain's predicates and a set of objects."""

    def __init__(self, reader: _Reader, domain_parts, objects: dict[str, str]):
        self.r = reader
        self.types, self.predicates, self.functions = domain_parts
        self.objects = objects
        self.external_constants: dict[str, Sym] = {}

    def is_subtype(self, t: str, of) -> bool:
        seen = 0
        while True:
            if t in of or ROOT_TYPE in of:
                return True
            if t == ROOT_TYPE or t not in self.types or seen > len(self.types):
                return False
            t, seen = self.types[t], seen + 1

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
                self.r.warn(f"undeclared constant {quote(term)}: a problem must declare it as "
                            f"an object", term)
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
            self.r.error(f"wrong arity: {quote(name)} takes {len(params)} argument(s), "
                         f"{len(args)} given", name)
            return None
        for arg, param in zip(args, params):
            types = self.term_types(arg, scope)
            if types is None:
                continue
            fits = any(self.is_subtype(t, param.types) for t in types)
            overlaps = fits or (arg.startswith("?") and any(self.is_subtype(p, types)
                                                            for p in param.types))
            if not overlaps:  # planners accept it in a domain, so there it is a warning
                report = self.r.error if self.r.stage == "problem" else self.r.warn
                report(f"type mismatch: {quote(arg)} is {' or '.join(types)} but {quote(name)} "
                       f"expects {' or '.join(param.types)}", arg)
        return Atom(name, tuple(args))

    def params(self, node, scope) -> tuple[tuple[Param, ...], dict]:
        if not isinstance(node, SList):
            self.r.error("expected a parenthesized list of variables", node)
            return (), scope
        pairs = self.r.typed_list(node, variables=True, known_types=self.types_with_root)
        self.r.check_unique([p for p, _ in pairs], "parameter")
        inner = dict(scope)
        inner.update({name: types for name, types in pairs})
        return tuple(Param(str(n), t) for n, t in pairs), inner

    @property
    def types_with_root(self):
        return set(self.types) | {ROOT_TYPE}

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
            self.r.error("expected a predicate or 'and', 'not', 'when', 'forall' after '(', "
                         "found a list", head)
            return []
        if head == "and":
            return [e for x in node[1:] for e in self.effect(x, scope)]
        if head == "not":
            if len(node) != 2 or not isinstance(node[1], SList) or not node[1] \
                    or node[1][0] in ("and", "not", "when", "forall"):
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
        if head == "increase" and len(node) == 3 and isinstance(node[1], SList) \
                and list(node[1]) == [_COST_FUNCTION]:
            return []  # action costs do not change what is applicable
        if head in _NUMERIC:
            self.r.error(f"numeric effect {quote(head)} is not supported (only "
                         f"'(increase (total-cost) ...)')", node)
            return []
        if head in ("or", "exists", "imply", "="):
            self.r.error(f"{quote(head)} is not allowed in an effect", node)
            return []
        atom = self.atom(node, scope)
        return [Literal(atom)] if atom else []


def parse_domain(source: str | os.PathLike, limits: Limits = Limits()) -> Domain:
    """Read a domain from a path or from PDDL text."""
    text = read_source(source, "domain", limits)
    form, warnings = extract_define(text, "domain", limits)
    r = _Reader(text, "domain")
    name, sections = r.header(form, "domain")
    requirements: list[str] = []
    types: dict[str, str] = {}
    constants: dict[str, str] = {}
    predicates: dict[str, Predicate] = {}
    functions: list[str] = []
    action_nodes: list[SList] = []
    seen_sections: set[str] = set()
    for section in sections:
        key = r.section_key(section)
        if key is None:
            continue
        if key != ":action" and key in seen_sections:
            r.error(f"duplicate section {quote(key)}", section)
        seen_sections.add(key)
        body = section[1:]
        if key == ":requirements":
            for req in body:
                if not isinstance(req, Sym):
                    r.error("expected a requirement such as ':strips', found a list", req)
                elif req in UNSUPPORTED_REQUIREMENTS:
                    r.error(f"unsupported requirement {quote(req)}", req)
                elif req not in SUPPORTED_REQUIREMENTS:
                    r.error(f"unknown requirement {quote(req)}", req)
                else:
                    requirements.append(str(req))
        elif key == ":types":
            pairs = r.typed_list(body, variables=False, known_types=_AnyType())
            r.check_unique([n for n, _ in pairs], "type")
            for type_name, parents in pairs:
                if len(parents) != 1:
                    r.error("a type's parent cannot be '(either ...)'", type_name)
                if type_name != ROOT_TYPE:
                    types[str(type_name)] = parents[0]
            for type_name, parents in pairs:
                if parents[0] != ROOT_TYPE and parents[0] not in types:
                    r.error(f"undeclared type {quote(parents[0])}", type_name)
            _check_type_cycles(r, types, pairs)
        elif key == ":constants":
            limits.check("max_objects", _count_names(body), "domain", "constants")
            pairs = r.typed_list(body, variables=False, known_types=set(types) | {ROOT_TYPE})
            r.check_unique([n for n, _ in pairs], "constant")
            constants.update(_single_types(r, pairs))
        elif key == ":predicates":
            for node in body:
                if not isinstance(node, SList) or not node or not isinstance(node[0], Sym):
                    r.error("expected a predicate declaration '(name ?x ...)'", node)
                    continue
                if node[0] in predicates:
                    r.error(f"duplicate predicate {quote(node[0])}", node[0])
                pairs = r.typed_list(node[1:], variables=True,
                                     known_types=set(types) | {ROOT_TYPE})
                predicates[str(node[0])] = Predicate(
                    str(node[0]), tuple(Param(str(n), t) for n, t in pairs))
        elif key == ":functions":
            functions.extend(str(n[0]) for n in body if isinstance(n, SList) and n)
        elif key == ":action":
            action_nodes.append(section)
        else:
            what = "derived predicates are" if key == ":derived" else f"section {quote(key)} is"
            r.error(f"{what} not supported", section)
    fr = _FormulaReader(r, (types, predicates, functions), constants)
    actions: dict[str, Action] = {}
    for node in action_nodes:
        action = _read_action(r, fr, node)
        if action is None:
            continue
        if action.name in actions:
            r.error(f"duplicate action {quote(action.name)}", node[1])
        actions[action.name] = action
    r.raise_if_errors()
    return Domain(str(name), tuple(requirements), types, constants, predicates, actions,
                  tuple(functions), tuple(fr.external_constants), tuple(warnings + r.warnings))


class _AnyType:
    """Accepts every type name: in ':types' a parent may be declared later."""

    def __contains__(self, item) -> bool:
        return True


def _single_types(r: _Reader, pairs) -> dict[str, str]:
    result = {}
    for name, types in pairs:
        if len(types) != 1:
            r.error(f"{quote(name)} cannot have an '(either ...)' type", name)
        result[str(name)] = types[0]
    return result


def _check_type_cycles(r: _Reader, types: dict[str, str], pairs) -> None:
    for type_name, _ in pairs:
        seen, t = {str(type_name)}, types.get(str(type_name))
        while t is not None and t != ROOT_TYPE:
            if t in seen:
                r.error(f"type {quote(type_name)} is its own ancestor", type_name)
                break
            seen.add(t)
            t = types.get(t)


def _read_action(r: _Reader, fr: _FormulaReader, node: SList) -> Action | None:
    if len(node) < 2 or not isinstance(node[1], Sym):
        r.error("expected '(:action NAME ...)'", node)
        return None
    name = node[1]
    fields: dict[str, object] = {}
    items = node[2:]
    for i in range(0, len(items), 2):
        key = items[i]
        if not isinstance(key, Sym) or not key.startswith(":"):
            r.error(f"expected ':parameters', ':precondition' or ':effect' in action "
                    f"{quote(name)}", key)
            return None
        if i + 1 >= len(items):
            r.error(f"{quote(key)} of action {quote(name)} has no value", key)
            return None
        if key not in (":parameters", ":precondition", ":effect"):
            r.error(f"unsupported action field {quote(key)}", key)
            continue
        if key in fields:
            r.error(f"duplicate {quote(key)} in action {quote(name)}", key)
        fields[str(key)] = items[i + 1]
    params, scope = fr.params(fields.get(":parameters", SList()), {})
    precondition = fr.formula(fields[":precondition"], scope) if ":precondition" in fields \
        else And(())
    if ":effect" not in fields:
        r.error(f"action {quote(name)} has no ':effect'", name)
    effects = fr.effect(fields[":effect"], scope) if ":effect" in fields else []
    return Action(str(name), params, precondition, tuple(effects))


def parse_problem(source: str | os.PathLike, domain: Domain, limits: Limits = Limits()) -> Problem:
    """Read a problem of ``domain`` from a path or from PDDL text."""
    text = read_source(source, "problem", limits)
    form, warnings = extract_define(text, "problem", limits)
    r = _Reader(text, "problem")
    name, sections = r.header(form, "problem")
    domain_name, goal_node = None, None
    objects: dict[str, str] = {}
    init_nodes: list = []
    seen_sections: set[str] = set()
    has_init = False
    for section in sections:
        key = r.section_key(section)
        if key is None:
            continue
        if key in seen_sections:
            r.error(f"duplicate section {quote(key)}", section)
        seen_sections.add(key)
        body = section[1:]
        if key == ":domain":
            if len(body) != 1 or not isinstance(body[0], Sym):
                r.error("expected '(:domain NAME)'", section)
                continue
            domain_name = body[0]
            if domain_name != domain.name:
                r.error(f"the problem is for domain {quote(domain_name)} but the domain is "
                        f"{quote(domain.name)}", domain_name)
        elif key == ":objects":
            limits.check("max_objects", _count_names(body), "problem", "objects")
            pairs = r.typed_list(body, variables=False,
                                 known_types=set(domain.types) | {ROOT_TYPE})
            r.check_unique([n for n, _ in pairs], "object")
            for obj, _ in pairs:
                if obj in domain.constants:
                    r.error(f"object {quote(obj)} is already a constant of the domain", obj)
            objects.update(_single_types(r, pairs))
        elif key == ":init":
            limits.check("max_init_facts", len(body), "problem", "facts in ':init'")
            has_init = True
            init_nodes = list(body)
        elif key == ":goal":
            if len(body) != 1:
                r.error("':goal' takes exactly one condition", section)
            goal_node = body[0] if body else SList()
            limits.check("max_goal_size", _count_lists(goal_node), "problem",
                         "conditions in ':goal'")
        elif key in (":metric", ":requirements"):
            continue
        else:
            r.error(f"section {quote(key)} is not supported in a problem", section)
    for constant in domain.external_constants:
        if constant not in objects:
            r.error(f"the domain's actions use {quote(constant)}, which is declared neither as a "
                    f"constant of the domain nor as an object of the problem", form)
    if domain_name is None:
        r.error("missing '(:domain NAME)'", form)
    if not has_init:
        r.error("missing ':init' section", form)
    if goal_node is None:
        r.error("missing ':goal' section", form)
    everything = dict(domain.constants)
    everything.update(objects)
    fr = _FormulaReader(r, (domain.types, domain.predicates, domain.functions), everything)
    init = _read_init(r, fr, init_nodes)
    goal = fr.formula(goal_node, {}) if goal_node is not None else And(())
    r.raise_if_errors()
    return Problem(str(name), str(domain_name), objects, tuple(init), goal,
                   tuple(warnings + r.warnings))


def _read_init(r: _Reader, fr: _FormulaReader, nodes) -> list[Atom]:
    init: list[Atom] = []
    seen: set[Atom] = set()
    for node in nodes:
        if not isinstance(node, SList) or not node:
            r.error("expected a fact '(predicate object ...)'", node)
            continue
        if node[0] == "=" and len(node) == 3 and isinstance(node[1], SList):
            continue  # a numeric fluent's value, such as (= (total-cost) 0)
        if node[0] in ("not", "and", "or", "forall", "exists", "="):
            r.error(f"':init' holds only facts, found {quote(node[0])}", node)
            continue
        atom = fr.atom(node, {})
        if atom is not None and atom not in seen:
            seen.add(atom)
            init.append(atom)
    return init


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


def parse(domain: str | os.PathLike, problem: str | os.PathLike,
          limits: Limits = Limits()) -> tuple[Domain, Problem]:
    """Read a domain and one of its problems (paths or PDDL text)."""
    d = parse_domain(domain, limits)
    return d, parse_problem(problem, d, limits)
