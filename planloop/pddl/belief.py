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

Every query and update of a belief takes a :class:`Work`: a budget counted in work units
(never seconds), past which it is a ValueError saying how big the work would be. A query
first simplifies its condition by what is known (a disjunction with a known true
disjunct is known true), splits conjunctions and disjunctions whose parts read separate
components, and enumerates worlds only of what remains.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import product

from . import conditions as cond
from .grounding import GroundAction


class Work:
    """A budget of work units: a world or assignment tested, a search node, a machine word
    kept. Spending past ``limit`` is a ValueError: ``exceeded`` words it from what the
    work needs (``doing`` and how much)."""

    __slots__ = ("limit", "doing", "exceeded", "spent")

    def __init__(self, limit: int, doing: str, exceeded: Callable[[str], str]):
        self.limit, self.doing, self.exceeded = limit, doing, exceeded
        self.spent = 0

    def left(self) -> int:
        """The units that may still be spent."""
        return self.limit - self.spent

    def spend(self, units: int, needed: Callable[[], str] | None = None) -> None:
        """Count ``units``; past a budget, the ValueError says the work needs ``needed()``
        (such as "up to 1,024 worlds"; by default, more units than the limit)."""
        self.spent += units
        if self.spent > self.limit:
            said = needed() if needed else f"more than {self.limit:,} work units"
            raise ValueError(self.exceeded(f"{self.doing} needs {said}"))


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

    @cached_property
    def stored(self) -> int:
        """The machine words (64 bits) its assignments take, at least one each."""
        return sum(len(c.assignments) * (c.facts.bit_length() // 64 + 1) for c in self.components)

    @cached_property
    def _component_of(self) -> dict[int, int]:
        """The index of the component of each unknown fact (an id)."""
        return {fid: i for i, c in enumerate(self.components) for fid in ids(c.facts)}

    def worlds(self) -> Iterator[int]:
        """Every world, in a fixed order."""
        for parts in product(*(c.assignments for c in self.components)):
            yield self.known | sum(parts)

    def some_world(self) -> int:
        """The first world of :meth:`worlds`."""
        return self.known | sum(c.assignments[0] for c in self.components)

    def failing_world(self, condition: cond.Condition, work: Work) -> int | None:
        """A world where the ground ``condition`` fails, or None when it holds in every
        world; only the components that the condition, simplified by what is known, still
        reads are enumerated."""
        found = self._failing(restrict(condition, self.known, self.unknown), work)
        if found is None:
            return None
        partial, covered = found
        rest = (c.assignments[0] for c in self.components if not c.facts & covered)
        return self.known | partial | sum(rest)

    def _failing(self, condition: cond.Condition, work: Work) -> tuple[int, int] | None:
        """(assignment, facts) of some components such that ``condition`` (reading only
        unknown facts) fails in every world with that assignment of those facts; None when
        it holds in every world."""
        if condition is True or condition is False:
            return None if condition else (0, 0)
        kind, parts = condition
        if kind == "and":
            for part in parts:
                found = self._failing(part, work)
                if found is not None:
                    return found
            return None
        groups = self._separate(parts) if kind == "or" else [condition]
        if len(groups) > 1:  # the disjunction fails where each group fails, independently
            partial = covered = 0
            for group in groups:
                found = self._failing(cond.disjoin(group), work)
                if found is None:
                    return None
                partial, covered = partial | found[0], covered | found[1]
            return partial, covered
        involved = [c for c in self.components if c.facts & facts_of(condition)]
        size = math.prod(len(c.assignments) for c in involved)
        test, allowed = compiled(condition), work.left()
        for tried, choice in enumerate(product(*(c.assignments for c in involved))):
            if tried == allowed:
                work.spend(tried + 1, lambda: f"up to {size:,} worlds tested")
            world = sum(choice)
            if not test(world):
                work.spend(tried + 1)
                return world, sum(c.facts for c in involved)
        work.spend(size)
        return None

    def _separate(self, parts: tuple) -> list[list[cond.Condition]]:
        """``parts`` in groups that read disjoint sets of components."""
        component_of = self._component_of
        group = list(range(len(self.components)))  # union-find over the components

        def root(i: int) -> int:
            while group[i] != i:
                group[i] = group[group[i]]
                i = group[i]
            return i

        firsts = []
        for part in parts:
            read = [component_of[fid] for fid in ids(facts_of(part))]
            for i in read[1:]:
                group[root(i)] = root(read[0])
            firsts.append(read[0])
        groups: dict[int, list[cond.Condition]] = {}
        for part, first in zip(parts, firsts, strict=True):
            groups.setdefault(root(first), []).append(part)
        return list(groups.values())

    def apply(self, action: GroundAction, max_component: int, work: Work) -> Belief:
        """The belief after ``action`` in every world. A conditional effect whose condition
        is unknown merges the components of its condition's and effect's facts (and takes
        in its known ones), testing each of their assignments; a merged component over
        ``max_component`` assignments is a ValueError."""
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
            work.spend(size, lambda: f"{size:,} assignments tested")
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

    def sense(self, fact: int, value: bool, work: Work) -> Belief:
        """The belief once ``fact`` (an id) is known to have ``value``."""
        bit = 1 << fact
        if not bit & self.unknown:
            return self
        holder = next(c for c in self.components if c.facts & bit)
        size = len(holder.assignments)
        work.spend(size, lambda: f"{size:,} assignments tested")
        kept = [a for a in holder.assignments if bool(a & bit) == value]
        return normal(
            self.known, [(c.facts, kept if c is holder else c.assignments) for c in self.components]
        )


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


def restrict(condition: cond.Condition, known: int, unknown: int) -> cond.Condition:
    """``condition`` simplified by the ``known`` facts (true) and those neither known nor
    ``unknown`` (false), its negations pushed onto atoms."""
    if condition is True or condition is False:
        return condition
    kind, arg = condition
    if kind == "atom":
        bit = 1 << arg
        return True if bit & known else condition if bit & unknown else False
    if kind == "not":
        if arg is True or arg is False:
            return not arg
        inner, parts = arg
        if inner == "atom":
            return cond.negate(restrict(arg, known, unknown))
        if inner == "not":
            return restrict(parts, known, unknown)
        flipped = cond.conjoin if inner == "or" else cond.disjoin
        return flipped(restrict(("not", p), known, unknown) for p in parts)
    junction = cond.conjoin if kind == "and" else cond.disjoin
    return junction(restrict(p, known, unknown) for p in arg)


@lru_cache(maxsize=4096)
def compiled(condition: cond.Condition) -> Callable[[int], bool]:
    """The test of a ground condition, kept."""
    return cond.compile_condition(condition)


def ids(mask: int) -> Iterator[int]:
    """The ids of the facts of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


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
