"""Knowledge queries of the factored belief: exact against every world, and within their
work budget (counted in work units, a ValueError naming the limit past it)."""

from __future__ import annotations

import random

import pytest

from planloop.pddl import conditions as cond
from planloop.pddl.belief import Belief, Work, normal

ATOMS = 12  # facts 0-11: 0-1 known true, 2-3 known false, the rest unknown


def _work(limit: int = 10**6) -> Work:
    return Work(limit, "deciding it", lambda found: f"{found}, more than {limit:,} (the limit)")


def _random_belief(rng: random.Random) -> Belief:
    """Facts 4-11 in components of 1-3 facts, each with a random non-empty set of values."""
    facts = list(range(4, ATOMS))
    rng.shuffle(facts)
    parts = []
    while facts:
        size = rng.randint(1, 3)
        group, facts = facts[:size], facts[size:]
        values = [sum(1 << f for f in group if rng.random() < 0.5) for _ in range(4)]
        parts.append((sum(1 << f for f in group), values))
    return normal(0b11, parts)


def _random_condition(rng: random.Random, depth: int) -> cond.Condition:
    if depth == 0 or rng.random() < 0.3:
        return cond.atom(rng.randrange(ATOMS))
    kind = rng.choice(["and", "or", "not"])
    if kind == "not":
        return ("not", _random_condition(rng, depth - 1))
    return (kind, tuple(_random_condition(rng, depth - 1) for _ in range(rng.randint(2, 4))))


def test_failing_world_equals_testing_every_world():
    rng = random.Random(0)
    for _ in range(1500):
        belief = _random_belief(rng)
        condition = _random_condition(rng, 4)
        worlds = set(belief.worlds())
        failing = [w for w in worlds if not cond.holds(condition, w)]
        work = _work()
        found = belief.failing_world(condition, work)
        if failing:
            assert found in worlds and not cond.holds(condition, found)
        else:
            assert found is None
        assert work.spent <= len(worlds)


def _independent(n: int) -> Belief:
    """Fact 0 known true; facts 1..n unknown, each its own component."""
    return normal(1, [(1 << i, [0, 1 << i]) for i in range(1, n + 1)])


def test_a_known_true_disjunct_decides_without_enumerating():
    belief = _independent(30)
    condition = cond.disjoin([cond.atom(0)] + [cond.atom(i) for i in range(1, 31)])
    work = _work(limit=1)
    assert belief.failing_world(condition, work) is None and work.spent == 0
    negated = ("not", cond.conjoin([("not", cond.atom(0)), cond.atom(5)]))
    assert belief.failing_world(negated, work) is None and work.spent == 0


def test_disjuncts_over_separate_components_are_decided_apart():
    belief = _independent(30)
    condition = cond.disjoin([cond.atom(i) for i in range(1, 31)])
    work = _work(limit=100)
    assert belief.failing_world(condition, work) == 1  # all 30 false: a world of 2^30
    assert work.spent <= 60


def test_a_query_past_its_budget_names_the_limit_and_the_work():
    belief = _independent(30)
    # true in every world, and its disjuncts share components: nothing splits
    disjuncts = [
        cond.conjoin([cond.atom(j) for j in range(1, i)] + [("not", cond.atom(i))])
        for i in range(1, 31)
    ]
    tautology = cond.disjoin(disjuncts + [cond.conjoin([cond.atom(i) for i in range(1, 31)])])
    with pytest.raises(ValueError) as caught:
        belief.failing_world(tautology, _work(limit=1000))
    assert str(caught.value) == (
        "deciding it needs up to 1,073,741,824 worlds tested, more than 1,000 (the limit)"
    )
    small = _independent(8)
    assert small.failing_world(tautology, _work(limit=256)) is None
