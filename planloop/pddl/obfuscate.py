"""Bijective renaming of predicates, actions and (optionally) objects.

Three ways to pick names: PlanBench's deceptive Mystery Blocksworld mapping,
seeded random English words, and seeded random strings (one letter then 15 of
``[a-z0-9]``, as PlanBench's randomized variant). Arity and types are kept.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass, field, replace
from importlib import resources

from .model import (
    Action,
    Atom,
    Domain,
    Equals,
    ForallEffect,
    Literal,
    Predicate,
    Problem,
    When,
    map_formula,
)

PLANBENCH_MYSTERY = {
    "clear": "province",
    "ontable": "planet",
    "handempty": "harmony",
    "holding": "pain",
    "on": "craves",
    "pick-up": "attack",
    "put-down": "succumb",
    "stack": "overcome",
    "unstack": "feast",
}
STYLES = ("planbench", "words", "random")


def _words() -> list[str]:
    text = resources.files("planloop.pddl").joinpath("data/words.txt").read_text()
    return [w for line in text.splitlines() if not line.startswith("#") for w in line.split()]


@dataclass(frozen=True)
class Renaming:
    """Old name -> new name, for predicates, actions and objects (absent: unchanged)."""

    predicates: dict[str, str] = field(default_factory=dict)
    actions: dict[str, str] = field(default_factory=dict)
    objects: dict[str, str] = field(default_factory=dict)

    def inverse(self) -> "Renaming":
        return Renaming(
            *({v: k for k, v in m.items()} for m in (self.predicates, self.actions, self.objects))
        )

    def _obj(self, term: str) -> str:
        return self.objects.get(term, term)

    def atom(self, a: Atom) -> Atom:
        return Atom(self.predicates.get(a.predicate, a.predicate), tuple(map(self._obj, a.args)))

    def command(self, name: str, args) -> tuple[str, tuple[str, ...]]:
        return self.actions.get(name, name), tuple(map(self._obj, args))

    def formula(self, f):
        return map_formula(f, self._leaf)

    def _leaf(self, f):
        if isinstance(f, Atom):
            return self.atom(f)
        return Equals(self._obj(f.left), self._obj(f.right))

    def effect(self, e):
        if isinstance(e, Literal):
            return Literal(self.atom(e.atom), e.negated)
        if isinstance(e, When):
            return When(self.formula(e.condition), tuple(map(self.effect, e.effects)))
        return ForallEffect(e.params, tuple(map(self.effect, e.effects)))

    def domain(self, d: Domain, name: str | None = None) -> Domain:
        predicates = {
            self.predicates.get(n, n): Predicate(self.predicates.get(n, n), p.params)
            for n, p in d.predicates.items()
        }
        actions = {}
        for n, a in d.actions.items():
            new = self.actions.get(n, n)
            actions[new] = Action(
                new, a.params, self.formula(a.precondition), tuple(map(self.effect, a.effects))
            )
        constants = {self._obj(c): t for c, t in d.constants.items()}
        return replace(
            d,
            name=name or d.name,
            predicates=predicates,
            actions=actions,
            constants=constants,
            external_constants=tuple(map(self._obj, d.external_constants)),
            warnings=(),
        )

    def problem(self, p: Problem, domain_name: str | None = None) -> Problem:
        return replace(
            p,
            domain_name=domain_name or p.domain_name,
            objects={self._obj(o): t for o, t in p.objects.items()},
            init=tuple(map(self.atom, p.init)),
            goal=self.formula(p.goal),
            warnings=(),
        )


def make_renaming(
    domain: Domain, style: str = "words", seed: int = 0, objects: list[str] | None = None
) -> Renaming:
    """A renaming of ``domain``'s predicates and actions, and of ``objects`` if given.

    ``planbench`` is PlanBench's fixed Mystery Blocksworld mapping (predicates and
    actions it does not name keep their names); ``words`` and ``random`` draw fresh,
    distinct names from ``seed``.
    """
    if style not in STYLES:
        raise ValueError(f"unknown obfuscation style {style!r}; choose one of {STYLES}")
    old_names = list(domain.predicates) + list(domain.actions)
    if style == "planbench":
        mapping = {n: PLANBENCH_MYSTERY.get(n, n) for n in old_names}
        obj_map: dict[str, str] = {}
        if objects:
            rng = random.Random(seed)
            fresh = _fresh(rng, "random", len(objects), set(mapping.values()))
            obj_map = dict(zip(objects, fresh, strict=True))
    else:
        rng = random.Random(seed)
        fresh = _fresh(rng, style, len(old_names) + len(objects or []), set())
        mapping = dict(zip(old_names, fresh[: len(old_names)], strict=True))
        obj_map = dict(zip(objects or [], fresh[len(old_names) :], strict=True))
    n_preds = len(domain.predicates)
    return Renaming(
        {k: mapping[k] for k in old_names[:n_preds]},
        {k: mapping[k] for k in old_names[n_preds:]},
        obj_map,
    )


def _fresh(rng: random.Random, style: str, count: int, taken: set[str]) -> list[str]:
    if style == "words":
        pool = [w for w in _words() if w not in taken]
        if count > len(pool):
            raise ValueError(f"{count} names needed but the word list has {len(pool)}")
        return rng.sample(pool, count)
    alphabet = string.ascii_lowercase + string.digits
    names: list[str] = []
    while len(names) < count:
        name = rng.choice(string.ascii_lowercase) + "".join(rng.choice(alphabet) for _ in range(15))
        if name not in taken and name not in names:
            names.append(name)
    return names
