"""A seeded belief of listed components and SAT formulas, for the belief tests."""

from __future__ import annotations

import random

from planloop.pddl.belief import Belief, Component, Formula, Work, normal
from planloop.pddl.sat import Sat


def mixed_belief(rng: random.Random, unknown: range, largest: int, values: int) -> Belief:
    """Facts below ``unknown`` known, ``unknown``'s facts in components of 1 to
    ``largest`` facts (each of ``values`` random assignments), about half of them
    formulas."""
    facts = list(unknown)
    rng.shuffle(facts)
    sat, work, parts, formulas = Sat(), Work(10**7, "a mixed belief", lambda f: f), [], []
    while facts:
        size = rng.randint(1, largest)
        group, facts = facts[:size], facts[size:]
        assignments = [sum(1 << f for f in group if rng.random() < 0.5) for _ in range(values)]
        for c in normal(0, [(sum(1 << f for f in group), assignments)]).components:
            assert isinstance(c, Component)
            if rng.random() < 0.5:
                parts.append((c.facts, c.assignments))
                continue
            lits = {f: sat.new_var() for f in group if c.facts >> f & 1}
            selectors = [sat.new_var() for _ in c.assignments]
            sat.exactly_one(selectors, work)
            sat.add(
                [
                    [-s, lit if a >> f & 1 else -lit]
                    for s, a in zip(selectors, c.assignments, strict=True)
                    for f, lit in lits.items()
                ],
                work,
            )
            formulas.append(Formula(c.facts, tuple(sorted(lits.items())), (), c.assignments[0]))
    return normal(0b11, parts, formulas, sat)
