"""Wumpus problems of any size in CLG's structure (``planloop.envs.wumpus``)."""

from __future__ import annotations

import pytest

from planloop.envs.wumpus import DOMAIN, wumpus_env, wumpus_problem
from planloop.pddl import parse_domain, parse_problem


@pytest.mark.parametrize("size", [3, 4, 5])
def test_a_wumpus_problem_has_six_worlds_a_dangerous_pair(size):
    env = wumpus_env(size, obs_format="pddl")
    _, info = env.reset(seed=0)
    assert info["belief_size"] == 6 ** (size - 2)
    assert "(at p1-1)" in info["known_facts"] and "(safe p2-2)" in info["known_facts"]
    assert {"(safe p2-3)", "(safe p3-2)", "(stench p2-2)"} <= set(info["unknown_facts"])


def test_a_pair_holds_one_safe_cell_and_a_wumpus_or_a_pit_in_the_other():
    env = wumpus_env(5, obs_format="pddl")
    for seed in range(6):
        env.reset(seed=seed)
        world = env.world_pddl()[1]
        for a, b in (("p2-3", "p3-2"), ("p3-4", "p4-3"), ("p4-5", "p5-4")):
            assert (f"(safe {a})" in world) != (f"(safe {b})" in world)
            unsafe = b if f"(safe {a})" in world else a
            assert f"(wumpus-at {unsafe})" in world or f"(pit-at {unsafe})" in world


def test_the_problem_is_clg_s_clause_for_clause():
    """CLG's wumpus05 (cp2fsc-and-replanner, benchmarks/replanner/CLG) has these clauses
    around the pair (p2-3, p3-2): 85 clauses in all, the same set for every size."""
    problem = parse_problem(
        wumpus_problem(5), parse_domain(DOMAIN, contingent=True), contingent=True
    )
    clauses = {
        (c.kind, frozenset((str(lit.atom), lit.negated) for lit in c.literals))
        for c in problem.clauses
    }
    assert len(clauses) == 85
    assert ("oneof", frozenset({("(safe p2-3)", False), ("(safe p3-2)", False)})) in clauses
    assert (
        "or",
        frozenset(
            {("(stench p2-2)", True), ("(wumpus-at p3-2)", False), ("(wumpus-at p2-3)", False)}
        ),
    ) in clauses
    assert ("or", frozenset({("(stench p1-3)", False), ("(wumpus-at p2-3)", True)})) in clauses
    assert "(gold-at p5-5)" in map(str, problem.init)


@pytest.mark.parametrize("size", [2, 0, 5.0, True, "5"])
def test_a_size_below_three_or_not_an_integer_is_refused(size):
    with pytest.raises(ValueError, match="size must be an integer of at least 3"):
        wumpus_problem(size)
