"""The formalization problem sets: sized, seeded, solvable problems and fixed sets."""

import pytest

from planloop.envs.baking import problem_texts
from planloop.envs.problem_sets import DOMAINS, MAX_SIZE, problem_set
from planloop.pddl import load, solve, validate

SIZED = [name for name, s in DOMAINS.items() if s.sized]


def solved(problem_set, text: str) -> None:
    result = solve(problem_set.domain_text(), text, planner="lama-first", timeout=60)
    assert result.status == "solved", result.message
    assert validate(load(problem_set.domain_text(), text), result.plan).valid


def test_registry_names_and_lookup():
    assert set(DOMAINS) >= {"blocksworld", "gripper", "ferry", "logistics", "baking"}
    assert len(SIZED) >= 4
    assert problem_set("gripper") is DOMAINS["gripper"]
    with pytest.raises(ValueError, match="known: blocksworld, gripper"):
        problem_set("hanoi")


@pytest.mark.parametrize("name", SIZED)
@pytest.mark.parametrize("size", [10, 20, 30, 40])
def test_generated_problems_declare_size_objects_deterministically(name, size):
    s = problem_set(name)
    texts = {seed: s.generate(size, seed) for seed in (0, 1, 2)}
    assert texts[0] == s.generate(size, 0)
    assert len(set(texts.values())) == 3
    for seed, text in texts.items():
        problem = s.parse(text)
        assert len(problem.objects) == size
        assert problem.name == f"{name}-{size}-{seed}"
        assert problem.domain_name == s.domain().name


@pytest.mark.slow
@pytest.mark.parametrize("name", SIZED)
@pytest.mark.parametrize("size,seed", [(10, 0), (10, 1), (20, 0), (20, 1), (30, 2), (40, 3)])
def test_generated_problems_are_solvable(name, size, seed):
    solved(problem_set(name), problem_set(name).generate(size, seed))


@pytest.mark.parametrize("name", SIZED)
def test_smallest_size_is_solvable_and_below_it_is_refused(name):
    s = problem_set(name)
    solved(s, s.generate(s.min_size, 0))
    with pytest.raises(ValueError, match=f"{name} problems have {s.min_size} to 1000 objects"):
        s.generate(s.min_size - 1, 0)
    with pytest.raises(ValueError, match="MAX_SIZE"):
        s.generate(MAX_SIZE + 1, 0)


@pytest.mark.parametrize("name", SIZED)
def test_goals_are_not_already_true(name):
    for seed in range(5):
        task = load(DOMAINS[name].domain_text(), DOMAINS[name].generate(10, seed))
        assert not task.is_goal(task.init)


def test_gripper_goal_moves_a_subset_of_balls_to_other_rooms():
    s = problem_set("gripper")
    moved = set()
    for seed in range(10):
        problem = s.parse(s.generate(20, seed))
        start = {f.args[0]: f.args[1] for f in problem.init if f.predicate == "at"}
        goals = [a for a in problem.goal.args if a.predicate == "at"]
        assert all(start[a.args[0]] != a.args[1] for a in goals)
        moved.add(len(goals))
    assert len(moved) > 1


def test_baking_is_a_fixed_set():
    s = problem_set("baking")
    assert not s.sized
    assert s.problems() == problem_texts()
    assert all(s.parse(text).name for text in s.problems())
    with pytest.raises(ValueError, match="fixed problems only"):
        s.generate(10, 0)
    assert problem_set("gripper").problems() == ()


def test_coin_worlds_come_by_seed_and_are_solvable_and_described():
    coin = problem_set("coin")
    assert not coin.sized and coin.seeded(4) == coin.seeded(4) != coin.seeded(5)
    text = coin.seeded(4)
    problem = coin.parse(text)
    assert 13 <= len(problem.objects) <= 18 and "(holding coin)" in text
    assert solve(coin.domain_text(), text, planner="lama-first", timeout=60).solved
    words = coin.describe(text)
    assert words.endswith("The goal is that the player holds coin.")
    assert "the player is in kitchen" in words
