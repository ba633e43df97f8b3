"""Conditions and effects read against a domain's predicates and a set of objects
(:class:`FormulaReader`), their errors and warnings on the reading's :class:`.Reader`."""

from __future__ import annotations

from .diagnostics import quote
from .model import (
    ROOT_TYPE,
    And,
    Atom,
    Effect,
    Equals,
    Exists,
    Forall,
    ForallEffect,
    Formula,
    Imply,
    Literal,
    Not,
    Or,
    Param,
    When,
)
from .reading import Reader, ancestors
from .sexpr import SList, Sym

_NUMERIC = frozenset(
    {">", "<", ">=", "<=", "assign", "increase", "decrease", "scale-up", "scale-down"}
)
_COST_FUNCTION = "total-cost"


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
            fits = self._fits[(t, of)] = any(a in of for a in ancestors(self.types, t))
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
