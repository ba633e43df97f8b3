"""Types as FF's parser has them: a type is the set of the objects declared in it or in a
type below it (parse.c ``build_orig_constant_list``, inst_pre.c ``collect_all_strings``),
so an object declared under two types is in both, and a type is a subtype of another
when all its objects are in the other (inst_pre.c ``is_subtype``). :class:`Membership`
holds those sets; :func:`retype` gives a model whose types are FF's sets."""

from __future__ import annotations

from dataclasses import replace

from .model import (
    ROOT_TYPE,
    Domain,
    ForallEffect,
    Formula,
    Param,
    When,
    map_formula,
)
from .sexpr import SList, Sym


def typed_names(items) -> list[tuple[Sym, tuple[str, ...]]]:
    """``a b - t c`` -> [(a, (t,)), (b, (t,)), (c, (object,))], the types as written
    (``(either t u)``: both); what is no name is left out (the reader says so)."""
    found: list[tuple[Sym, tuple[str, ...]]] = []
    pending: list[Sym] = []
    i = 0
    while i < len(items):
        item = items[i]
        if item == "-" and i + 1 < len(items):
            kind = items[i + 1]
            names = kind[1:] if isinstance(kind, SList) else [kind]
            found += [(n, tuple(str(t) for t in names)) for n in pending]
            pending, i = [], i + 2
            continue
        if isinstance(item, Sym) and not item.startswith("-"):
            pending.append(item)
        i += 1
    return found + [(n, (ROOT_TYPE,)) for n in pending]


class Membership:
    """Each object's types as FF computes them: every type it is declared in, the types
    above those (``:types``' inclusions, transitively) and ``object``."""

    def __init__(self, inclusions, declarations):
        parents: dict[str, set[str]] = {}
        for name, above in inclusions:
            parents.setdefault(str(name), set()).update(above)
        self.of: dict[str, set[str]] = {}
        self.declared: dict[str, list[str]] = {}  # object -> its declared types, in order
        for name, types in declarations:
            kept = self.declared.setdefault(str(name), [])
            kept += [t for t in types if t not in kept]
            self.of.setdefault(str(name), {ROOT_TYPE}).update(_closure(types, parents))

    def members(self, types: tuple[str, ...]) -> frozenset[str]:
        """The objects in any of ``types``."""
        if ROOT_TYPE in types:
            return frozenset(self.of)
        return frozenset(o for o, ts in self.of.items() if not ts.isdisjoint(types))

    def is_subtype(self, sub: tuple[str, ...], of: tuple[str, ...]) -> bool:
        return self.members(sub) <= self.members(of)

    def kind(self, name: str) -> str:
        """The name of the set of objects sharing ``name``'s types: its declared types."""
        return "+".join(self.declared[name])


def _closure(types, parents: dict[str, set[str]]) -> set[str]:
    seen, todo = set(types), list(types)
    while todo:
        for above in parents.get(todo.pop(), ()):
            if above not in seen:
                seen.add(above)
                todo.append(above)
    return seen


def retype(
    d: Domain, membership: Membership, goal: Formula
) -> tuple[Domain, dict[str, str], Formula]:
    """``d`` with FF's types: one flat type per set of objects of the same declared
    types, each parameter typed with the sets inside its type; each object's (and
    constant's) new type; and ``goal`` with its quantifiers typed likewise."""
    kinds = {o: membership.kind(o) for o in membership.of}
    inside: dict[tuple[str, ...], tuple[str, ...]] = {}

    def param(p: Param) -> Param:
        if ROOT_TYPE in p.types:
            return p
        if p.types not in inside:
            members = membership.members(p.types)
            inside[p.types] = tuple(dict.fromkeys(kinds[o] for o in sorted(members)))
        return Param(p.name, inside[p.types] or p.types)

    def formula(f: Formula) -> Formula:
        return map_formula(
            f, lambda leaf: leaf, lambda q, body: type(q)(tuple(map(param, q.params)), body)
        )

    def effect(e):
        if isinstance(e, When):
            return When(formula(e.condition), tuple(map(effect, e.effects)))
        if isinstance(e, ForallEffect):
            return ForallEffect(tuple(map(param, e.params)), tuple(map(effect, e.effects)))
        return e

    actions = {
        name: replace(
            a,
            params=tuple(map(param, a.params)),
            precondition=formula(a.precondition),
            effects=tuple(map(effect, a.effects)),
        )
        for name, a in d.actions.items()
    }
    predicates = {
        name: replace(p, params=tuple(map(param, p.params))) for name, p in d.predicates.items()
    }
    types = {k: ROOT_TYPE for k in dict.fromkeys(kinds.values()) if k != ROOT_TYPE}
    types.update((t, ROOT_TYPE) for t in d.types if t not in types)  # empty types stay
    constants = {c: kinds[c] for c in d.constants if c in kinds}
    return (
        replace(d, types=types, constants=constants, predicates=predicates, actions=actions),
        kinds,
        formula(goal),
    )
