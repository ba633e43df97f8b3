"""``RESTART`` replays the same world in every environment: ``info["instance"]`` names
it and ``reset(options={"instance": ...})`` builds it again."""

import gymnasium as gym
import pytest

import planloop  # noqa: F401
from planloop.envs import CONTINGENT_ENVIRONMENTS, ENVIRONMENTS
from planloop.policies import RESTART, run_episode

from conftest import DATA

OPTIONS = {
    "PDDL-v0": {
        "domain": DATA / "planbench/blocksworld/generated_domain.pddl",
        "problem": DATA / "planbench/blocksworld/generated_basic",
    },
    "ALFWorld-v0": {"data_dir": DATA / "alfworld/games"},
    "CoinCollector-v0": {"num_locations": 7},
    "ContingentPDDL-v0": {
        "domain": DATA / "contingent/lamps/domain.pddl",
        "problem": DATA / "contingent/lamps/problem.pddl",
    },
}


def world(env) -> str:
    """What the world is, as the environment knows it."""
    inner = env.unwrapped
    if hasattr(inner, "world_pddl"):
        return inner.world_pddl()[1]
    return inner.view.task_pddl(inner.task)["problem_pddl"]


class RestartThenStop:
    """Restarts once, recording the world before and after."""

    name = "restart-then-stop"

    def __init__(self, env):
        self.env, self.worlds = env, []

    def reset(self, obs, info):
        pass

    def act(self, obs, info):
        self.worlds.append(world(self.env))
        return RESTART if len(self.worlds) == 1 else "look around the room"


@pytest.mark.parametrize("env_id", list(ENVIRONMENTS))
@pytest.mark.parametrize("seed", [1, 2])
def test_restart_replays_the_same_world(env_id, seed):
    env = gym.make(env_id, **OPTIONS.get(env_id, {}))
    policy = RestartThenStop(env)
    episode = run_episode(env, policy, seed=seed, max_steps=1)
    assert episode.restarts == 1 and episode.instance is not None
    assert len(policy.worlds) == 2 and policy.worlds[0] == policy.worlds[1]
    other = env.reset(seed=seed + 100)[1]["instance"]
    if other != episode.instance and env_id not in CONTINGENT_ENVIRONMENTS:
        # a different world really is different (a contingent instance draws its hidden
        # world from the belief: two instances may draw the same one)
        assert world(env) != policy.worlds[0]


def test_coin_instance_is_the_house_seed():
    env = gym.make("CoinCollector-v0", num_locations=5)
    _, info = env.reset(seed=11)
    gold = env.unwrapped.gold_path()
    assert info["instance"] == 11
    env.reset(seed=12)
    _, info = env.reset(options={"instance": 11})
    assert info["instance"] == 11 and env.unwrapped.gold_path() == gold
    _, _, _, _, info = env.step("look around")
    assert info["instance"] == 11


def test_a_layout_is_one_house():
    env = gym.make("CoinCollector-v0", layout=DATA / "twx_coin/coin_L5_D1_X0_train_s3.json")
    assert env.reset(seed=4)[1]["instance"] == 0
    with pytest.raises(ValueError, match="instance must be 0, not 3"):
        env.reset(options={"instance": 3})
