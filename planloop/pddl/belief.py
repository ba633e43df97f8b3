"""Exact, factored beliefs: the set of worlds an agent still considers possible.

A :class:`Belief` holds the facts known to be true (``known``) and independent
components, each a set of facts and the assignments of them still possible. A world is
``known`` and one assignment of each component (states are bitsets), so the belief is
the product of its components. A small component lists its assignments (a
:class:`Component`); one past ``max_belief`` of them is a :class:`Formula`, a CNF in the
belief's incremental SAT solver (:class:`~.sat.Sat`) with the same answers. Actions
apply to every world at once; a conditional effect whose condition is unknown merges
the components it mixes (a formula gives each fact it changes a fresh variable defined
from the old ones); sensing keeps the assignments that agree with the sensed value (a
formula assumes it). After every change, a fact with one value in all of its
component's assignments leaves the component (for ``known`` if true), so the facts of
the components are exactly the unknown ones and every other fact not in ``known`` is
known to be false. A formula finds those facts as the backbone of its models: "is L
known?" is "are the formula and not-L unsatisfiable?".

Every query and update of a belief takes a :class:`Work`: a budget counted in work units,
past which it is a ValueError saying how big the work would be, with a wall-clock
backstop (``BACKSTOP_SECONDS`` a unit) should some work be undercounted. A query
first simplifies its condition by what is known (a disjunction with a known true
disjunct is known true), splits conjunctions and disjunctions whose parts read separate
components, and enumerates worlds only of what remains (asking the solver, for a
formula, whether the condition can fail).
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from itertools import product

import numpy as np

from . import conditions as cond
from .grounding import GroundAction
from .sat import Sat, literal

BACKSTOP_SECONDS = 30e-6  # a budget's wall-clock backstop: seconds a unit (a unit is ~1 us)
BACKSTOP_FLOOR = 5.0  # and at least this many seconds


class Work:
    """A budget of work units: a world or assignment tested, a clause visited, a search
    node, a machine word kept, a SAT call, conflict or clause. Spending past ``limit`` is
    a ValueError: ``exceeded`` words it from what the work needs (``doing`` and how
    much). So is spending once ``limit`` units' backstop (``BACKSTOP_SECONDS`` each, at
    least ``BACKSTOP_FLOOR``) has passed since the budget began: a machine 10 times
    slower than counted, or work counted 30 times too low, stops there all the same."""

    __slots__ = ("limit", "doing", "exceeded", "spent", "deadline")

    def __init__(self, limit: int, doing: str, exceeded: Callable[[str], str]):
        self.limit, self.doing, self.exceeded = limit, doing, exceeded
        self.spent = 0
        self.deadline = time.monotonic() + max(limit * BACKSTOP_SECONDS, BACKSTOP_FLOOR)

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
        self.in_time()

    def in_time(self) -> None:
        """A ValueError once the backstop's time has passed."""
        if time.monotonic() > self.deadline:
            seconds = max(self.limit * BACKSTOP_SECONDS, BACKSTOP_FLOOR)
            raise ValueError(
                self.exceeded(
                    f"{self.doing} needs more than {seconds:,.0f} s (the backstop of "
                    f"{BACKSTOP_SECONDS * 1e6:.0f} us a work unit; {self.spent:,} units counted)"
                )
            )


@dataclass(frozen=True)
class Component:
    """A component that lists its assignments."""

    facts: int  # the unknown facts, a mask
    assignments: tuple[int, ...]  # the possible values of ``facts`` (masks within it), sorted


@dataclass(frozen=True)
class Formula:
    """A component held as a formula: its assignments are the values that the literals
    of ``facts`` take in the models of its belief's solver's clauses and ``assumed``."""

    facts: int  # the unknown facts, a mask
    literals: tuple[tuple[int, int], ...]  # (fact id, the literal of its value now), by id
    assumed: tuple[int, ...]  # literals that hold in every world (what was sensed), sorted
    sample: int = field(compare=False)  # the facts true in one of its worlds


@dataclass(frozen=True)
class Belief:
    known: int  # the facts true in every world (none of a component's)
    components: tuple[Component | Formula, ...]  # ordered by their lowest fact
    sat: Sat | None = None  # the solver of its formulas (None when it has none)

    @cached_property
    def unknown(self) -> int:
        """The facts true in some worlds and false in others."""
        mask = 0
        for c in self.components:
            mask |= c.facts
        return mask

    @property
    def size(self) -> int | None:
        """How many worlds the belief holds; None when a component is a formula (whose
        worlds are not counted)."""
        counts = [len(c.assignments) for c in self.components if isinstance(c, Component)]
        return math.prod(counts) if len(counts) == len(self.components) else None

    @cached_property
    def stored(self) -> int:
        """The machine words (64 bits) its assignments take, at least one each, and a
        word for each literal of its formulas (their solver's clauses are shared)."""
        return sum(
            len(c.assignments) * (c.facts.bit_length() // 64 + 1)
            if isinstance(c, Component)
            else len(c.literals) + len(c.assumed) + 1
            for c in self.components
        )

    @cached_property
    def _component_of(self) -> dict[int, int]:
        """The index of the component of each unknown fact (an id)."""
        return {fid: i for i, c in enumerate(self.components) for fid in ids(c.facts)}

    def worlds(self) -> Iterator[int]:
        """Every world, in a fixed order (a formula's assignments found one by one: for
        checks on small beliefs)."""
        work = Work(sys.maxsize, "listing the worlds", str)
        choices = [
            c.assignments
            if isinstance(c, Component)
            else self._solver().models(c.assumed, dict(c.literals), work)
            for c in self.components
        ]
        for parts in product(*choices):
            yield self.known | sum(parts)

    def some_world(self) -> int:
        """A world: each component's first assignment, or a formula's sample."""
        return self.known | sum(_first(c) for c in self.components)

    def forked(self) -> Belief:
        """The same belief on a copy of its solver, whose state it then changes alone."""
        return self if self.sat is None else replace(self, sat=self.sat.fork())

    def draw(self, rng: np.random.Generator, work: Work) -> int:
        """A world drawn by ``rng``, component by component: uniformly among a listed
        component's assignments; for a formula, each fact in turn (by id) taking a
        random value when the formula, with the values chosen so far, allows both (every
        world can be drawn, not uniformly)."""
        world = self.known
        for c in self.components:
            if isinstance(c, Component):
                world |= c.assignments[int(rng.integers(len(c.assignments)))]
                continue
            sat, chosen = self._solver(), list(c.assumed)
            sat.solve(chosen, work)  # the model kept satisfies every literal chosen
            for fid, lit in c.literals:
                wanted = lit if rng.random() < 0.5 else -lit
                if sat.value(wanted) or sat.solve([*chosen, wanted], work):
                    chosen.append(wanted)
                else:
                    chosen.append(-wanted)
                world |= (chosen[-1] == lit) << fid
        return world

    def _solver(self) -> Sat:
        assert self.sat is not None, "a belief with a formula has its solver"
        return self.sat

    def failing_world(self, condition: cond.Condition, work: Work) -> int | None:
        """A world where the ground ``condition`` fails, or None when it holds in every
        world; only the components that the condition, simplified by what is known, still
        reads are enumerated."""
        found = self._failing(restrict(condition, self.known, self.unknown), work)
        if found is None:
            return None
        partial, covered = found
        rest = (_first(c) for c in self.components if not c.facts & covered)
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
        if any(isinstance(c, Formula) for c in involved):
            return self._failing_formula(condition, involved, work)
        listed = _listed(involved)
        size = math.prod(len(a) for a in listed)
        test, allowed = compiled(condition), work.left()
        for tried, choice in enumerate(product(*listed)):
            if tried == allowed:
                work.spend(tried + 1, lambda: f"up to {size:,} worlds tested")
            world = sum(choice)
            if not test(world):
                work.spend(tried + 1)
                return world, sum(c.facts for c in involved)
        work.spend(size)
        return None

    def _failing_formula(
        self, condition: cond.Condition, involved: list[Component | Formula], work: Work
    ) -> tuple[int, int] | None:
        """:meth:`_failing` where formulas are involved: for each assignment of the
        listed components, whether the solver finds a model where the rest fails."""
        formulas = [c for c in involved if isinstance(c, Formula)]
        listed = _listed(involved)
        lits = {fid: lit for c in formulas for fid, lit in c.literals}
        assumed = sorted({lit for c in formulas for lit in c.assumed})
        unknown = sum(c.facts for c in formulas)
        covered = sum(c.facts for c in involved)
        size, sat = math.prod(len(a) for a in listed), self._solver()
        for choice in product(*listed):
            work.spend(1, lambda: f"up to {size:,} worlds tested")
            partial = sum(choice)
            holds = sat.define(over(restrict(condition, partial, unknown), lits), work)
            if holds is True:
                continue
            if holds is False:
                return partial | sum(c.sample for c in formulas), covered
            if sat.solve([*assumed, -holds], work):
                return partial | sum(1 << f for f, lit in lits.items() if sat.value(lit)), covered
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
        in its known ones): testing each of their assignments, or, when a formula is
        among them or they have more than ``max_component`` assignments together, into a
        formula (see :meth:`_merged`)."""
        known, unknown = self.known, self.unknown
        add, delete = action.add, action.delete
        mixed, touched = [], 0
        for test, condition, c_add, c_delete in action.conditional:
            reads = facts_of(condition)
            if reads & unknown:
                mixed.append((test, condition, c_add, c_delete))
                touched |= reads | c_add | c_delete
            elif test(known):
                add, delete = add | c_add, delete | c_delete
        merged = [c for c in self.components if c.facts & touched]
        rest = [c for c in self.components if not c.facts & touched]
        facts = touched & ~unknown  # known facts that now differ between worlds
        for c in merged:
            facts |= c.facts
        listed = _listed(merged)
        size = math.prod(len(a) for a in listed)
        parts, sat, stays = [], self.sat, 0  # stays: facts of ``facts`` now true
        formulas: list[Component | Formula | None] = []  # and the components kept as they are
        if mixed and (len(listed) < len(merged) or size > max_component):
            sat = sat or Sat()
            formula, stays = self._merged(sat, merged, mixed, add, delete, facts, work)
            formulas.append(formula)
        elif mixed:
            work.spend(size, lambda: f"{size:,} assignments tested")
            assignments = []
            for choice in product(*listed):
                world = known | sum(choice)
                w_add, w_delete = add, delete
                for test, _, c_add, c_delete in mixed:
                    if test(world):
                        w_add, w_delete = w_add | c_add, w_delete | c_delete
                assignments.append(((world & ~w_delete) | w_add) & facts)
            parts.append((facts, assignments))
        for c in rest:
            if isinstance(c, Component) and not c.facts & (add | delete):
                formulas.append(c)  # unchanged: kept as it is
            elif isinstance(c, Component):
                parts.append((c.facts, [((a & ~delete) | add) & c.facts for a in c.assignments]))
            else:  # the facts the action sets leave the formula
                formulas.append(_without(c, add | delete))
                stays |= add & c.facts
        return normal(((known & ~delete) | add) & ~(unknown | facts) | stays, parts, formulas, sat)

    def _merged(
        self,
        sat: Sat,
        merged: list[Component | Formula],
        mixed: list,
        add: int,
        delete: int,
        facts: int,
        work: Work,
    ) -> tuple[Formula | None, int]:
        """(the formula of ``facts`` after the step, the facts of ``facts`` known true
        after it): ``merged`` joined in ``sat`` (a listed component as an exactly-one of
        its assignments), each fact the step may change given a fresh literal defined
        from the values before it (added, or true and not deleted: an add wins), and the
        facts so changed checked for a value that no world escapes."""
        lits: dict[int, int] = {}
        assumed: set[int] = set()
        for c in merged:
            if isinstance(c, Formula):
                lits.update(c.literals)
                assumed.update(c.assumed)
            else:
                lits.update(_encoded(sat, c, work))
        before = dict(lits)

        def value(fid: int) -> cond.Condition:  # a fact's value before the step
            return literal(before[fid]) if fid in before else bool(self.known >> fid & 1)

        changed = (add | delete) & facts
        effects = []
        for _, condition, c_add, c_delete in mixed:
            holds = over(restrict(condition, self.known, self.unknown), before)
            effects.append((_expression(sat.define(holds, work)), c_add, c_delete))
            changed |= c_add | c_delete
        true = sum(1 << f for f in ids(facts & ~changed) if f not in lits and self.known >> f & 1)
        check = []
        for fid in ids(changed & facts):
            bit = 1 << fid
            adds = [e for e, c_add, _ in effects if c_add & bit] + [bool(add & bit)]
            dels = [e for e, _, c_delete in effects if c_delete & bit] + [bool(delete & bit)]
            now = cond.disjoin(adds + [cond.conjoin([value(fid), cond.negate(cond.disjoin(dels))])])
            lit = sat.define(now, work)
            lits.pop(fid, None)
            if lit is True:
                true |= bit
            elif lit is not False:
                lits[fid] = lit
                check.append(fid)
        return formula_of(sat, lits, sorted(assumed), check, work, true)

    def sense(self, values: dict[int, bool], work: Work) -> Belief:
        """The belief once each fact of ``values`` (an id) is known to have its value, as
        if sensed one by one in order (a fact already known is left alone): each
        component they touch updated once, the others kept as they are. A listed
        component costs its assignments for each fact sensed in it."""
        component_of, unknown = self._component_of, self.unknown
        touched: dict[int, list[int]] = {}
        for fid in values:
            if unknown >> fid & 1:
                touched.setdefault(component_of[fid], []).append(fid)
        if not touched:
            return self
        known, parts = self.known, []
        kept: list[Component | Formula | None] = []
        for i, c in enumerate(self.components):
            facts = touched.get(i)
            if facts is None:
                kept.append(c)
            elif isinstance(c, Component):
                assignments = list(c.assignments)
                for fid in facts:
                    size, bit = len(assignments), 1 << fid
                    work.spend(size, _tested(size))
                    if any(a & bit for a in assignments) and not all(a & bit for a in assignments):
                        assignments = [a for a in assignments if bool(a & bit) == values[fid]]
                parts.append((c.facts, assignments))
            else:
                formula, true = self._sensed(c, facts, values, work)
                known |= true
                kept.append(formula)
        return normal(known, parts, kept, self.sat)

    def _sensed(
        self, c: Formula, facts: list[int], values: dict[int, bool], work: Work
    ) -> tuple[Formula | None, int]:
        """(the formula ``c`` once ``facts`` are sensed one by one, the facts that left it
        true): each sensed fact still in it assumed, and its backbone found again."""
        formula: Formula | None = c
        true = 0
        for fid in facts:
            lits = dict(formula.literals) if formula is not None else {}
            if fid not in lits:
                continue  # known since an earlier fact was sensed
            assert formula is not None
            lit = lits[fid] if values[fid] else -lits[fid]
            assumed = sorted({*formula.assumed, lit})
            formula, more = formula_of(self._solver(), lits, assumed, lits, work)
            true |= more
        return formula, true


def normal(
    known: int,
    parts: Iterable[tuple[int, Iterable[int]]],
    kept: Iterable[Component | Formula | None] = (),
    sat: Sat | None = None,
) -> Belief:
    """The belief of ``known`` facts (none of the parts' facts), listed components given
    as (facts, assignments) and components ``kept`` as they are (formulas in ``sat``,
    listed ones already normal; None: a formula left without facts): facts with one
    value in all of their part's assignments leave it (for ``known`` when true); empty
    components are dropped. A part without assignments is a ValueError (an empty
    belief)."""
    components: list[Component | Formula] = [c for c in kept if c is not None]
    has_formula = any(isinstance(c, Formula) for c in components)
    for facts, assignments in parts:
        values = set(assignments)
        if not values:
            raise ValueError("the belief is empty: no world satisfies what is known")
        always, ever = facts, 0
        for a in values:
            always &= a
            ever |= a
        known |= always
        facts &= ever & ~always
        if facts:
            components.append(Component(facts, tuple(sorted({a & facts for a in values}))))
    components.sort(key=lambda c: c.facts & -c.facts)
    return Belief(known, tuple(components), sat if has_formula else None)


def formula_of(
    sat: Sat,
    lits: dict[int, int],
    assumed: list[int],
    check: Iterable[int],
    work: Work,
    true: int = 0,
) -> tuple[Formula | None, int]:
    """(the formula of the facts of ``lits`` in ``sat`` under ``assumed`` once those of
    ``check`` that have one value in every model leave it, ``true`` and the facts that
    left it true); None when no fact is left."""
    sample, fixed = sat.backbone(assumed, lits, check, work)
    for fid, value in fixed.items():
        del lits[fid]
        true |= value << fid
    if not lits:
        return None, true
    facts = sum(1 << f for f in lits)
    return Formula(facts, tuple(sorted(lits.items())), tuple(assumed), sample & facts), true


def _encoded(sat: Sat, c: Component, work: Work) -> dict[int, int]:
    """A fresh variable for each fact of a listed component, constrained to take one of
    its assignments (a selector variable for each)."""
    lits = {fid: sat.new_var() for fid in ids(c.facts)}
    selectors = [sat.new_var() for _ in c.assignments]
    sat.exactly_one(selectors, work)
    sat.add(
        (
            [-s, lit if a >> fid & 1 else -lit]
            for s, a in zip(selectors, c.assignments, strict=True)
            for fid, lit in lits.items()
        ),
        work,
    )
    return lits


def _without(c: Formula, facts: int) -> Formula | None:
    """``c`` without ``facts`` (None when none is left)."""
    left = c.facts & ~facts
    if not left:
        return None
    literals = tuple((f, lit) for f, lit in c.literals if left >> f & 1)
    return Formula(left, literals, c.assumed, c.sample & left)


def _tested(size: int) -> Callable[[], str]:
    return lambda: f"{size:,} assignments tested"


def _first(c: Component | Formula) -> int:
    return c.assignments[0] if isinstance(c, Component) else c.sample


def _listed(components: Iterable[Component | Formula]) -> list[tuple[int, ...]]:
    """The assignments of each listed component of ``components``."""
    return [c.assignments for c in components if isinstance(c, Component)]


def _parts(components: Iterable[Component | Formula]) -> list[tuple[int, tuple[int, ...]]]:
    return [(c.facts, c.assignments) for c in components if isinstance(c, Component)]


def _formulas(components: Iterable[Component | Formula]) -> list[Formula]:
    return [c for c in components if isinstance(c, Formula)]


def _expression(value: bool | int) -> cond.Condition:
    """A value of :meth:`~.sat.Sat.define` as an expression again."""
    return value if value is True or value is False else literal(value)


def over(condition: cond.Condition, lits: dict[int, int]) -> cond.Condition:
    """``condition`` with each fact replaced by its literal in ``lits``."""
    if condition is True or condition is False:
        return condition
    kind, arg = condition
    if kind == "atom":
        return literal(lits[arg])
    if kind == "not":
        return cond.negate(over(arg, lits))
    junction = cond.conjoin if kind == "and" else cond.disjoin
    return junction(over(p, lits) for p in arg)


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
