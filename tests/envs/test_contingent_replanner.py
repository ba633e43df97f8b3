"""The optimistic contingent replanner, through the one step interface."""

from __future__ import annotations

from pathlib import Path

import pytest

from planloop.envs.contingent import ContingentPDDLEnv, blocks_env
from planloop.policies import ContingentReplanner, run_episode

TESTS = Path(__file__).parent.parent / "data" / "contingent"


@pytest.mark.parametrize("name", ["lamps", "doors3", "colorballs2"])
def test_the_replanner_wins_the_small_problems(name):
    folder = TESTS / name
    env = ContingentPDDLEnv(folder / "domain.pddl", folder / "problem.pddl")
    for seed in range(2):
        policy = ContingentReplanner()
        episode = run_episode(env, policy, seed=seed, max_steps=100)
        assert episode.won
        assert policy.planner_calls >= 1


def test_the_replanner_senses_before_it_plans():
    env = blocks_env(obs_format="pddl")
    policy = ContingentReplanner()
    episode = run_episode(env, policy, seed=0, max_steps=20)
    assert episode.won and episode.actions[0].startswith("(sense")
    assert not any(episode.errors)


def test_the_replanner_refuses_a_fully_observable_env():
    with pytest.raises(ValueError, match="contingent environment"):
        ContingentReplanner().reset("", {"admissible_actions": []})
