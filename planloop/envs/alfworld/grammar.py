"""TextWorld's text grammar (``.twl2``) and its context-sensitive derivation.

A grammar file holds a JSON block of production rules and, per PDDL action, a
command ``template``, a ``feedback`` symbol and more rules. A right-hand side mixes
literal text, ``#tag#`` (expand the first rule of ``tag`` whose condition holds),
``{statement}`` (a Python-like expression over the bound entities), ``{x | query}``
(one derivation of ``x`` per assignment of the query) and ``[{x | query}]`` (those
derivations as an English list). Queries are conjunctions ``pred(v:type) & ...``
matched against a :class:`Facts` view, as TextWorld's ``State.all_assignments`` does:
depth first, facts in sorted order, distinct variables bound to distinct objects.
"""

from __future__ import annotations

import ast
import json
import re
import textwrap
from dataclasses import dataclass
from typing import Callable, Iterator, Protocol

Key = tuple[str, str]  # (variable name, type)


class Facts(Protocol):
    """What a query is matched against."""

    def facts(self, predicate: str, bound: tuple[int, str] | None = None) -> list[tuple[str, ...]]:
        """The argument tuples of ``predicate``'s true facts, sorted; with ``bound``
        (slot, object), those holding that object in that slot (more may come back:
        :func:`assignments` checks every argument)."""

    def is_a(self, obj: str, type_name: str) -> bool: ...


@dataclass(frozen=True)
class Entity:
    """An object as texts see it: ``{o.name}``, ``{o.indefinite}``; ``{o}`` is the name."""

    id: str
    name: str
    indefinite: str = "a"
    definite: str = "the"

    def __str__(self) -> str:
        return self.name


# -- symbols ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Literal:
    text: str


@dataclass(frozen=True)
class Tag:
    name: str


@dataclass(frozen=True)
class Eval:
    source: str
    function: Callable
    names: frozenset[str]  # the variables it reads


@dataclass(frozen=True)
class Query:
    atoms: tuple[tuple[str, tuple[Key, ...]], ...]

    @property
    def predicates(self) -> set[str]:
        return {predicate for predicate, _ in self.atoms}


@dataclass(frozen=True)
class Conditional:
    expression: Tag | Eval
    query: Query | None


@dataclass(frozen=True)
class ListOf:
    item: Conditional


@dataclass(frozen=True)
class Production:
    condition: Query | None
    rhs: str


@dataclass(frozen=True)
class ActionText:
    """An action's command ``template`` and ``feedback`` right-hand sides."""

    name: str
    template: str
    feedback: str


_ATOM = re.compile(r"\s*([\w-]+)\s*\(([^()]*)\)\s*")


def parse_query(text: str) -> Query:
    """``pred(a:agent, l:location) & other(...)`` as a :class:`Query`."""
    atoms = []
    for part in text.split("&"):
        match = _ATOM.fullmatch(part)
        if match is None:
            raise ValueError(f"not a query atom: {part!r}")
        params: list[Key] = []
        for arg in match.group(2).split(","):
            if arg.strip():
                name, colon, type_name = arg.partition(":")
                if not colon:  # a Key is (name, type): assignments() reads the type
                    raise ValueError(f"not a query atom (a parameter has no type): {part!r}")
                params.append((name.strip(), type_name.strip()))
        atoms.append((match.group(1).lower(), tuple(params)))
    return Query(tuple(atoms))


def _compile_statement(source: str) -> tuple[Callable[[dict], object], frozenset[str]]:
    """A statement (names, attributes, string literals, ``+``, ``or``, ``and``) as a
    function of the variables, and the variables it reads; anything else is refused."""
    names: set[str] = set()

    def build(node):
        if isinstance(node, ast.Name):
            name = node.id
            names.add(name)
            return lambda env: env[name]
        if isinstance(node, ast.Attribute):
            inner, attr = build(node.value), node.attr
            return lambda env: getattr(inner(env), attr)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            value = node.value
            return lambda env: value
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = build(node.left), build(node.right)
            return lambda env: left(env) + right(env)
        if isinstance(node, ast.BoolOp):
            parts = [build(v) for v in node.values]
            if isinstance(node.op, ast.Or):

                def either(env):
                    value = None
                    for part in parts:
                        value = part(env)
                        if value:
                            return value
                    return value

                return either

            def both(env):
                value = None
                for part in parts:
                    value = part(env)
                    if not value:
                        return value
                return value

            return both
        raise ValueError(f"unsupported statement {source!r}")

    function = build(ast.parse(source.strip(), mode="eval").body)
    return function, frozenset(names)


def _conditional(body: str) -> Conditional:
    expression, _, given = body.partition("|")
    expression = expression.strip()
    head: Tag | Eval
    if expression.startswith("#") and expression.endswith("#") and len(expression) > 1:
        head = Tag(expression[1:-1])
    else:
        head = Eval(expression, *_compile_statement(expression))
    return Conditional(head, parse_query(given) if given.strip() else None)


def parse_rhs(text: str) -> tuple:
    """The symbols of a right-hand side (leading whitespace skipped, as TextWorld's
    parser does)."""
    text = text.lstrip()
    symbols: list = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "[" and text.startswith("[{", i):
            end = text.index("}]", i)
            symbols.append(ListOf(_conditional(text[i + 2 : end])))
            i = end + 2
        elif c == "{":
            end = text.index("}", i)
            symbols.append(_conditional(text[i + 1 : end]))
            i = end + 1
        elif c == "#" and text.find("#", i + 1) > i:
            end = text.index("#", i + 1)
            symbols.append(Tag(text[i + 1 : end]))
            i = end + 1
        else:
            match = re.compile(r"[^\[{#]+|.").match(text, i)
            assert match is not None  # i < n, and "." takes the [{# that the class refuses
            symbols.append(Literal(match.group()))
            i = match.end()
    return tuple(symbols)


class Grammar:
    """Production rules and action texts of one game, with derivation."""

    def __init__(self, rules: dict[str, list[dict]], actions: dict[str, ActionText]):
        self.rules = {
            name: [
                Production(parse_query(r["condition"]) if r.get("condition") else None, r["rhs"])
                for r in alternatives
            ]
            for name, alternatives in rules.items()
        }
        self.actions = actions
        self._parsed: dict[str, tuple] = {}

    @classmethod
    def parse(cls, text: str) -> "Grammar":
        """Read a ``.twl2`` document."""
        rules: dict = {}
        actions: dict[str, ActionText] = {}
        position = 0
        block = re.compile(r'\s*grammar\s*::\s*"""(.*?)"""\s*;', re.S)
        action = re.compile(r"\s*action\s+([\w-]+)\s*\{(.*?)\n\}", re.S)
        while position < len(text.rstrip()):
            found = block.match(text, position)
            if found:
                rules.update(json.loads(textwrap.dedent(found.group(1))))
            else:
                found = action.match(text, position)
                if found is None:
                    raise ValueError(
                        f"cannot read grammar at offset {position}: "
                        f"{text[position : position + 40]!r}"
                    )
                name, body = found.group(1), found.group(2)
                fields = dict(
                    re.findall(r'(template|feedback)\s*::\s*"((?:[^"\\]|\\.)*)"\s*;', body)
                )
                actions[name.lower()] = ActionText(name, fields["template"], fields["feedback"])
                inner = re.search(r'grammar\s*::\s*"""(.*?)"""', body, re.S)
                if inner:
                    lines = textwrap.dedent(inner.group(1)).split("\n")
                    rules.update(
                        json.loads(
                            "\n".join(line for line in lines if not line.lstrip().startswith("#"))
                        )
                    )
            position = found.end()
        return cls(rules, actions)

    def symbols(self, rhs: str) -> tuple:
        parsed = self._parsed.get(rhs)
        if parsed is None:
            parsed = self._parsed[rhs] = parse_rhs(rhs)
        return parsed

    def queried_predicates(self, rhs: str) -> set[str] | None:
        """The predicates ``rhs`` queries directly, or None if it expands other rules."""
        items = self._evaluated(rhs)
        if items is None:
            return None
        return {p for item in items if item.query is not None for p in item.query.predicates}

    def variables(self, rhs: str) -> set[str] | None:
        """The variables ``rhs`` reads directly, or None if it expands other rules."""
        items = self._evaluated(rhs)
        if items is None:
            return None
        found: set[str] = set()
        for item in items:
            assert isinstance(item.expression, Eval)  # _evaluated refuses tags
            found |= item.expression.names
            if item.query is not None:
                found |= {name for _, params in item.query.atoms for name, _ in params}
        return found

    def _evaluated(self, rhs: str) -> list[Conditional] | None:
        """The statements of ``rhs``, or None if it expands other rules."""
        found: list[Conditional] = []
        for symbol in self.symbols(rhs):
            item = symbol.item if isinstance(symbol, ListOf) else symbol
            if isinstance(item, Tag) or (
                isinstance(item, Conditional) and isinstance(item.expression, Tag)
            ):
                return None
            if isinstance(item, Conditional):
                found.append(item)
        return found

    # -- derivation ----------------------------------------------------------------
    def derive(
        self, rhs: str, facts: Facts, mapping: dict[Key, str], entities: dict[str, Entity]
    ) -> str:
        """The text of ``rhs`` with ``mapping`` bound, in the world ``facts``."""
        out: list[str] = []
        self._derive(self.symbols(rhs), facts, mapping, entities, out)
        return "".join(out)

    def _derive(self, symbols, facts, mapping, entities, out: list[str]) -> None:
        for symbol in symbols:
            if isinstance(symbol, Literal):
                out.append(symbol.text)
            elif isinstance(symbol, Tag):
                self._expand(symbol.name, facts, mapping, entities, out)
            elif isinstance(symbol, Conditional):
                for item in self._items(symbol, facts, mapping, entities):
                    out.append(item)
            else:
                self._list(
                    self._items(symbol.item, facts, mapping, entities),
                    facts,
                    mapping,
                    entities,
                    out,
                )

    def _expand(self, name, facts, mapping, entities, out) -> None:
        alternatives = self.rules.get(name)
        if not alternatives:
            raise KeyError(f"no rule '#{name}#' in the grammar")
        for production in alternatives:
            if (
                production.condition is None
                or next(assignments(production.condition, mapping, facts), None) is not None
            ):
                self._derive(self.symbols(production.rhs), facts, mapping, entities, out)
                return
        raise ValueError(f"no alternative of '#{name}#' applies")

    def _items(self, symbol: Conditional, facts, mapping, entities) -> list[str]:
        contexts = [mapping] if symbol.query is None else assignments(symbol.query, mapping, facts)
        items = []
        for context in contexts:
            if isinstance(symbol.expression, Tag):
                part: list[str] = []
                self._expand(symbol.expression.name, facts, context, entities, part)
                items.append("".join(part))
            else:
                variables = {name: entities[obj] for (name, _), obj in context.items()}
                items.append(str(symbol.expression.function(variables)))
        return items

    def _list(self, items: list[str], facts, mapping, entities, out) -> None:
        if not items:
            self._expand("list_empty", facts, mapping, entities, out)
            return
        for index, item in enumerate(items):
            if index == len(items) - 1 and index > 0:
                self._expand("list_last_separator", facts, mapping, entities, out)
            elif index > 0:
                self._expand("list_separator", facts, mapping, entities, out)
            out.append(item)


def assignments(query: Query, mapping: dict[Key, str], facts: Facts) -> Iterator[dict]:
    """Every extension of ``mapping`` that makes all of ``query``'s atoms true."""
    atoms = query.atoms
    bound = dict(mapping)
    used = set(bound.values())

    def extend(depth: int):
        if depth == len(atoms):
            yield dict(bound)
            return
        predicate, params = atoms[depth]
        known = next(((i, bound[key]) for i, key in enumerate(params) if key in bound), None)
        for args in facts.facts(predicate, known):
            if len(args) != len(params):
                continue
            added = []
            for key, value in zip(params, args, strict=True):
                current = bound.get(key)
                if current is None:
                    if value in used or not facts.is_a(value, key[1]):
                        break
                    bound[key] = value
                    used.add(value)
                    added.append(key)
                elif current != value:
                    break
            else:
                yield from extend(depth + 1)
            for key in added:
                used.discard(bound.pop(key))

    return extend(0)
