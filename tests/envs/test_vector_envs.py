"""Every environment vectorises through ``gym.make_vec``, sync and async (shared memory,
the default): each sub-environment prints what a single environment with the same seed
prints, infos merge into one batch on every step, and autoreset resets."""

import gymnasium as gym
import pytest

import planloop  # noqa: F401
from planloop.envs import ENVIRONMENTS

from conftest import DATA

OPTIONS = {
    "PDDL-v0": {
        "domain": DATA / "planbench/blocksworld/generated_domain.pddl",
        "problem": DATA / "planbench/blocksworld/generated_basic",
    },
    "ALFWorld-v0": {"data_dir": DATA / "alfworld/games"},
    "ContingentPDDL-v0": {
        "domain": DATA / "contingent/lamps/domain.pddl",
        "problem": DATA / "contingent/lamps/problem.pddl",
    },
}
SEEDS = [0, 1, 2]
STEPS = 2  # max_episode_steps: the third step autoresets


def unbatch(infos: dict, i: int) -> dict:
    """Sub-environment ``i``'s info out of a vector env's batch."""
    return {
        key: unbatch(value, i) if isinstance(value, dict) else value[i]
        for key, value in infos.items()
        if not key.startswith("_") and infos[f"_{key}"][i]
    }


def command(info: dict, step: int, i: int) -> str:
    """Valid and invalid commands, mixed across sub-environments and steps."""
    admissible = info["admissible_actions"]
    return admissible[(step + i) % len(admissible)] if (step + i) % 3 else "xyzzy plugh"


def single_step(env, action: str, ended: bool) -> tuple:
    """What a single environment does where its sub-environment steps (an ended episode
    resets instead, gymnasium's default ``NEXT_STEP`` autoreset)."""
    if ended:
        obs, info = env.reset()
        return obs, 0.0, False, False, info
    return env.step(action)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("env_id", list(ENVIRONMENTS))
def test_vector_env_matches_single_envs(env_id, mode):
    options = OPTIONS.get(env_id, {})
    singles = [gym.make(env_id, max_episode_steps=STEPS, **options) for _ in SEEDS]
    envs = gym.make_vec(
        f"planloop:{env_id}",
        num_envs=len(SEEDS),
        vectorization_mode=mode,
        max_episode_steps=STEPS,
        **options,
    )
    try:
        obs, infos = envs.reset(seed=SEEDS)
        expected = [env.reset(seed=seed) for env, seed in zip(singles, SEEDS, strict=True)]
        assert obs == tuple(o for o, _ in expected)
        assert all(unbatch(infos, i) == info for i, (_, info) in enumerate(expected))
        ended, autoresets, kinds = [False] * len(SEEDS), 0, set()
        for step in range(2 * STEPS):
            autoresets += sum(ended)
            actions = tuple(command(e[-1], step, i) for i, e in enumerate(expected))
            obs, rewards, terminated, truncated, infos = envs.step(actions)
            expected = [single_step(*args) for args in zip(singles, actions, ended, strict=True)]
            assert obs == tuple(e[0] for e in expected)
            assert all(unbatch(infos, i) == e[-1] for i, e in enumerate(expected))
            assert list(zip(rewards, terminated, truncated, strict=True)) == [
                e[1:4] for e in expected
            ]
            ended = list(terminated | truncated)
            kinds |= {e[-1]["action_error"]["kind"] for e in expected}
        assert autoresets and "" in kinds and len(kinds) > 1  # valid and invalid commands
    finally:
        envs.close()


def test_an_observation_longer_than_the_space_is_an_error_not_cut_short():
    env = gym.make("Blocksworld-v0", max_obs_length=50)
    with pytest.raises(
        ValueError,
        match=r"the observation has \d+ characters, more than the "
        r"observation space's max_length=50",
    ):
        env.reset(seed=0)
