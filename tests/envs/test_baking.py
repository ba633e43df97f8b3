"""Baking-v0: the household baking domain (cakes and souffles) and its four problems."""

import string
from functools import lru_cache

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import planloop  # noqa: F401
from planloop.envs import ENVIRONMENTS, FULLY_OBSERVABLE
from planloop.envs.baking import (
    ACTIONS,
    GOAL_DESCRIPTIONS,
    OPTIMAL_PLAN_LENGTHS,
    PREDICATES,
    TEMPLATES,
    baking_domain,
    domain_description,
    domain_text,
    problem_texts,
)
from planloop.pddl import ground, parse_problem, render_fact, render_facts, solve
from planloop.pddl.model import And, Atom
from planloop.pddl.search import breadth_first

INSTANCES = range(len(OPTIMAL_PLAN_LENGTHS))


@lru_cache(maxsize=None)
def optimal_plan(instance: int) -> tuple[str, ...]:
    result = solve(domain_text(), problem_texts()[instance], planner="seq-opt-lmcut", timeout=60)
    assert result.status == "solved", result.message
    return result.plan


def make(instance: int, **kwargs):
    env = gym.make("Baking-v0", **kwargs)
    obs, info = env.reset(options={"instance": instance})
    return env, obs, info


def test_registered_and_passes_the_env_checker():
    assert "Baking-v0" in ENVIRONMENTS and "Baking-v0" in FULLY_OBSERVABLE
    env = gym.make("Baking-v0")
    assert env.spec.max_episode_steps == 100
    check_env(env.unwrapped, skip_render_check=False)


def test_four_instances_in_the_order_of_the_issue():
    env = gym.make("Baking-v0").unwrapped
    assert env.num_instances == 4 == len(GOAL_DESCRIPTIONS)
    assert OPTIMAL_PLAN_LENGTHS == (10, 12, 15, 24)
    goals = []
    for i in INSTANCES:
        env.reset(options={"instance": i})
        goals.append(env.observe()[1]["task"])
    assert goals == list(GOAL_DESCRIPTIONS)
    goals = [env.load_instance(i).problem.goal for i in INSTANCES]
    rendered = [render_facts(g.args if isinstance(g, And) else [g], TEMPLATES) for g in goals]
    assert rendered == [
        "mixture1 is a baked cake",
        "mixture1 is a baked souffle",
        "mixture1 is served on plate1 and oven1 is turned off",
        "mixture1 is a baked cake and mixture2 is a baked souffle",
    ]


@pytest.mark.slow
@pytest.mark.parametrize("instance", INSTANCES)
def test_optimal_plan_lengths(instance):
    """Fast Downward's optimal planner and our breadth-first search agree on the length."""
    assert len(optimal_plan(instance)) == OPTIMAL_PLAN_LENGTHS[instance]
    task = ground(baking_domain(), parse_problem(problem_texts()[instance], baking_domain()))
    shortest = breadth_first(task, timeout=60)
    assert shortest is not None and len(shortest) == OPTIMAL_PLAN_LENGTHS[instance]


@pytest.mark.parametrize("instance", INSTANCES)
def test_optimal_plan_wins_and_one_step_less_does_not(instance):
    plan = optimal_plan(instance)
    env, obs, info = make(instance)
    for step, command in enumerate(plan, start=1):
        assert command in info["admissible_actions"]
        obs, reward, terminated, truncated, info = env.step(command)
        assert not info["action_error"]["kind"], info["action_error"]
        if step == len(plan) - 1:
            assert not terminated and reward == 0 and not info["won"]
    assert terminated and reward == 1.0 and info["won"]
    assert "The goal is achieved." in obs


@pytest.mark.parametrize("instance", INSTANCES)
def test_text_observations_read_as_english(instance):
    env, obs, info = make(instance)
    texts = [obs, info["task"]]
    *plan, last = optimal_plan(instance)
    for command in plan:
        obs, *_, info = env.step(command)
        texts += [obs, info["feedback"]]
    obs, *_, info = env.step("(crack-egg egg1 mixing-bowl1)")
    assert info["action_error"]["kind"] == "inapplicable"
    assert "egg1 is still in its shell" in info["action_error"]["unmet"]
    assert "egg1 has been used up in a batter" in obs
    texts += [obs] + info["action_error"]["unmet"]
    obs, *_, info = env.step(last)
    texts += [obs, info["feedback"]]
    for text in texts:
        assert "(" not in text and ")" not in text and "?" not in text, text
        assert set(text) <= set(string.printable)
    assert "egg1 is still in its shell" in texts[0]


def test_pddl_observations_keep_the_facts():
    env, obs, info = make(0, obs_format="pddl")
    assert "(in-shell egg1)" in obs and "(attached mixing-bowl1 mixer1)" in obs
    assert "(crack-egg egg1 mixing-bowl1)" in info["admissible_actions"]


def test_inapplicable_action_names_unmet_facts_in_english():
    env, obs, info = make(0)
    state = env.unwrapped.state
    obs, reward, terminated, truncated, info = env.step("(bake-cake mixture1 pan1 oven1)")
    assert env.unwrapped.state == state and reward == 0 and not terminated
    error = info["action_error"]
    assert error["kind"] == "inapplicable"
    assert set(error["unmet"]) == {
        "mixture1 is a cake batter",
        "mixture1 is in pan1",
        "pan1 is in oven1",
        "oven1 is turned on",
    }
    assert error["message"].startswith("Cannot bake mixture1 in pan1 in oven1 into a cake")
    assert error["message"] in obs


def test_every_predicate_action_parameter_and_goal_is_described():
    domain = baking_domain()
    assert set(PREDICATES) == set(domain.predicates)
    assert set(ACTIONS) == set(domain.actions)
    for name, predicate in domain.predicates.items():
        template, description = PREDICATES[name]
        assert description.strip() and template.strip()
        args = tuple(f"obj{i}" for i in range(len(predicate.params)))
        text = render_fact(Atom(name, args), TEMPLATES)
        assert all(arg in text for arg in args)
        assert text != render_fact(Atom(name, args))  # its own words, not the generic ones
    for name, action in domain.actions.items():
        template, description, params = ACTIONS[name]
        assert description.strip()
        assert list(params) == [p.name for p in action.params]
        assert all(text.strip() for text in params.values())
        args = [f"obj{i}" for i in range(len(action.params))]
        assert all(arg in template.format(*args) for arg in args)
    assert all(goal.strip() for goal in GOAL_DESCRIPTIONS)


def test_domain_description_is_in_info_and_covers_the_domain():
    env, obs, info = make(1)
    description = info["domain_description"]
    assert description == domain_description()
    for name, (_, text, params) in ACTIONS.items():
        assert f"({name} " in description and text in description
        assert all(p in description for p in params.values())
    for name, (_, text) in PREDICATES.items():
        assert f"({name} " in description and text in description


def _without(problem: str, fact: str) -> str:
    assert fact in problem
    return problem.replace(fact, "")


def test_cake_needs_baking_powder():
    cake = problem_texts()[0]
    assert solve(domain_text(), cake, planner="bfs", timeout=30).status == "solved"
    no_powder = _without(cake, "(in-cup baking-powder1 cup4)")
    assert solve(domain_text(), no_powder, planner="bfs", timeout=30).status == "unsolvable"
    assert (
        solve(domain_text(), no_powder, planner="seq-opt-lmcut", timeout=30).status == "unsolvable"
    )


def test_souffle_refuses_baking_powder_and_a_whole_egg():
    env, obs, info = make(3)
    for command in [
        "(attach-bowl mixing-bowl1 mixer1)",
        "(crack-egg egg1 mixing-bowl1)",
        "(pour-flour flour2 cup2 mixing-bowl1)",
        "(pour-sugar sugar2 cup4 mixing-bowl1)",
        "(pour-butter butter2 cup6 mixing-bowl1)",
        "(pour-baking-powder baking-powder1 cup7 mixing-bowl1)",
    ]:
        *_, info = env.step(command)
        assert not info["action_error"]["kind"], info["action_error"]
    *_, info = env.step(
        "(beat-souffle-batter mixing-bowl1 mixer1 mixture2 egg1 flour2 sugar2 butter2)"
    )
    assert set(info["action_error"]["unmet"]) == {
        "egg1 is separated and only its yolk is kept",
        "not mixing-bowl1 contains baking powder",
    }


def test_an_ingredient_is_used_once():
    env, obs, info = make(3)
    *_, info = env.step("(pour-flour flour1 cup1 mixing-bowl1)")
    assert not info["action_error"]["kind"]
    *_, info = env.step("(pour-flour flour1 cup1 mixing-bowl1)")
    assert info["action_error"]["kind"] == "inapplicable"
    assert "flour1 is measured out in cup1" in info["action_error"]["unmet"]
    assert not any(a.startswith("(pour-flour flour1 ") for a in info["admissible_actions"])
    # a bowl takes one portion of each kind
    *_, info = env.step("(pour-flour flour2 cup2 mixing-bowl1)")
    assert info["action_error"]["unmet"] == ["not mixing-bowl1 contains flour"]
    # an egg is cracked once, and the ingredients beaten into a batter are used up
    env, obs, info = make(0)
    plan = optimal_plan(0)
    beat = next(i for i, a in enumerate(plan) if a.startswith("(beat-cake-batter "))
    for command in plan[: beat + 1]:
        obs, *_, info = env.step(command)
    assert "egg1 has been used up in a batter" in obs
    assert "flour1 is in mixing-bowl1" not in obs
    assert not any(a.startswith(("(crack-egg egg1", "(pour-")) for a in info["admissible_actions"])
    *_, info = env.step("(crack-egg egg1 small-bowl1)")
    assert info["action_error"]["unmet"] == ["egg1 is still in its shell"]


def test_the_task_is_the_goal_in_words_and_pddl_observations_keep_the_formula():
    for instance, goal in enumerate(GOAL_DESCRIPTIONS):
        _, info = gym.make("Baking-v0").reset(options={"instance": instance})
        assert info["task"] == goal
    obs, info = gym.make("Baking-v0", obs_format="pddl").reset(options={"instance": 0})
    assert info["task"] == "(and (is-cake mixture1))" and obs.endswith(
        "Goal: (and (is-cake mixture1))"
    )
