"""Exact, factored beliefs: the set of worlds an agent still considers possible.

A :class:`Belief` holds the facts known to be true (``known``) and independent
:class:`Component` s: each a set of facts and the assignments of them still possible. A
world is ``known`` and one assignment of each component (states are bitsets), so the
belief is the product of its components. Actions apply to every world at once; a
conditional effect whose condition is unknown merges the components it mixes; sensing
keeps the assignments that agree with the sensed value. After every change, a fact with
one value in all of its component's assignments leaves the component (for ``known`` if
true), so the facts of the components are exactly the unknown ones and every other fact
not in ``known`` is known to be false.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import product

from . import conditions as cond
from .grounding import GroundAction


@dataclass(frozen=True)
class Component:
    facts: int  # the unknown facts, a mask
    assignments: tuple[int, ...]  # the possible values of ``facts`` (masks within it), sorted


@dataclass(frozen=True)
class Belief:
    known: int  # the facts true in every world (none of a component's)
    components: tuple[Component, ...]  # ordered by their lowest fact

    @cached_property
    def unknown(self) -> int:
        """The facts true in some worlds and false in others."""
        mask = 0
        for c in self.components:
            mask |= c.facts
        return mask

    @property
    def size(self) -> int:
        """How many worlds the belief holds."""
        return math.prod(len(c.assignments) for c in self.components)

    def worlds(self) -> Iterator[int]:
        """Every world, in a fixed order."""
        for parts in product(*(c.assignments for c in self.components)):
            yield self.known | sum(parts)

    def some_world(self) -> int:
        """The first world of :meth:`worlds`."""
        return self.known | sum(c.assignments[0] for c in self.components)

    def failing_world(self, test: Callable[[int], bool], facts: int) -> int | None:
        """A world where ``test`` (which reads only ``facts``) fails, or None when it holds
        in every world: only the components holding some of ``facts`` are enumerated."""
        if not facts & self.unknown:
            return None if test(self.known) else self.known
        involved = [c.assignments for c in self.components if c.facts & facts]
        for parts in product(*involved):
            world = self.known | sum(parts)
            if not test(world):
                return world
        return None

    def apply(self, action: GroundAction, max_component: int) -> Belief:
        """The belief after ``action`` in every world. A conditional effect whose condition
        is unknown merges the components of its condition's and effect's facts (and takes
        in its known ones); a merged component over ``max_component`` assignments is a
        ValueError."""
        known, unknown = self.known, self.unknown
        add, delete = action.add, action.delete
        mixed, touched = [], 0
        for test, condition, c_add, c_delete in action.conditional:
            reads = facts_of(condition)
            if reads & unknown:
                mixed.append((test, c_add, c_delete))
                touched |= reads | c_add | c_delete
            elif test(known):
                add, delete = add | c_add, delete | c_delete
        merged = [c for c in self.components if c.facts & touched]
        rest = [c for c in self.components if not c.facts & touched]
        facts = touched & ~unknown  # known facts that now differ between worlds
        for c in merged:
            facts |= c.facts
        size = math.prod(len(c.assignments) for c in merged)
        if size > max_component:
            raise ValueError(
                f"applying {action.text} merges unknown facts into a component of "
                f"{size:,} assignments, more than max_belief={max_component:,}"
            )
        parts = []
        if mixed:
            assignments = []
            for choice in product(*(c.assignments for c in merged)):
                world = known | sum(choice)
                w_add, w_delete = add, delete
                for test, c_add, c_delete in mixed:
                    if test(world):
                        w_add, w_delete = w_add | c_add, w_delete | c_delete
                assignments.append(((world & ~w_delete) | w_add) & facts)
            parts.append((facts, assignments))
        parts += [(c.facts, [((a & ~delete) | add) & c.facts for a in c.assignments]) for c in rest]
        return normal(((known & ~delete) | add) & ~(unknown | facts), parts)

    def sense(self, fact: int, value: bool) -> Belief:
        """The belief once ``fact`` (an id) is known to have ``value``."""
        bit = 1 << fact
        if not bit & self.unknown:
            return self
        parts: list[tuple[int, Iterable[int]]] = []
        for c in self.components:
            kept: Iterable[int] = c.assignments
            if c.facts & bit:
                kept = [a for a in kept if bool(a & bit) == value]
            parts.append((c.facts, kept))
        return normal(self.known, parts)


def normal(known: int, parts: Iterable[tuple[int, Iterable[int]]]) -> Belief:
    """The belief of ``known`` facts (none of the parts' facts) and components given as
    (facts, assignments): facts with one value in all of their component's assignments
    leave it (for ``known`` when true); empty components are dropped. A part without
    assignments is a ValueError (an empty belief)."""
    components = []
    for facts, assignments in parts:
        kept = set(assignments)
        if not kept:
            raise ValueError("the belief is empty: no world satisfies what is known")
        always, ever = facts, 0
        for a in kept:
            always &= a
            ever |= a
        known |= always
        facts &= ever & ~always
        if facts:
            components.append(Component(facts, tuple(sorted({a & facts for a in kept}))))
    components.sort(key=lambda c: c.facts & -c.facts)
    return Belief(known, tuple(components))


@lru_cache(maxsize=65536)
def facts_of(condition: cond.Condition) -> int:
    """The mask of the facts a ground condition reads."""
    if condition is True or condition is False:
        return 0
    if condition[0] == "atom":
        return 1 << condition[1]
    if condition[0] == "not":
        return facts_of(condition[1])
    mask = 0
    for part in condition[1]:
        mask |= facts_of(part)
    return mask
