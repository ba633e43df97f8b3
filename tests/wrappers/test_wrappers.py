"""ObfuscateNames, HideAdmissibleActions, IndexActions, RecordEpisode."""

import json

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import planloop  # noqa: F401
from planloop.wrappers import HideAdmissibleActions, IndexActions, ObfuscateNames, RecordEpisode

TRUE_NAMES = ("clear", "ontable", "handempty", "holding", "pick-up", "put-down", "stack",
              "unstack")


@pytest.mark.parametrize("style", ["words", "random", "planbench"])
def test_obfuscate_names_hides_every_true_name(style):
    env = ObfuscateNames(gym.make("Blocksworld-v0", obs_format="pddl"), style=style, seed=2)
    obs, info = env.reset(options={"instance": 5})
    seen = obs + json.dumps(info) 
    for _ in range(20):
        obs, *_, info = env.step(info["admissible_actions"][0])
        seen += obs + json.dumps(info)
    for name in TRUE_NAMES:
        assert f"({name} " not in seen and f"({name})" not in seen


def test_obfuscated_env_refuses_true_names_and_accepts_its_own():
    env = ObfuscateNames(gym.make("Blocksworld-v0"), style="words", seed=0)
    _, info = env.reset(options={"instance": 0})
    true_name = env.unwrapped.task.applicable(env.unwrapped.state)[0]
    *_, info_true = env.step(true_name.text)
    assert info_true["action_error"]["kind"] == "unknown"
    *_, info_ok = env.step(info["admissible_actions"][0])
    assert info_ok["action_error"] is None


def test_obfuscate_objects_renames_objects_per_instance():
    env = ObfuscateNames(gym.make("Blocksworld-v0", obs_format="pddl"), seed=1, objects=True)
    _, info = env.reset(options={"instance": 0})
    objects = set(env.unwrapped.task.objects)
    args = {w.strip(")") for a in info["admissible_actions"] for w in a.split()[1:]}
    assert args and not args & objects


def test_obfuscate_names_passes_env_checker():
    check_env(ObfuscateNames(gym.make("Blocksworld-v0").unwrapped))


def test_hide_admissible_actions():
    env = HideAdmissibleActions(gym.make("Mystery-BW-v0"))
    _, info = env.reset(seed=0)
    assert "admissible_actions" not in info
    *_, info = env.step("(attack a)")
    assert "admissible_actions" not in info and "action_error" in info


def test_index_actions_mask_matches_admissible_actions():
    env = IndexActions(gym.make("Mystery-BW-v0"))
    assert isinstance(env.action_space, gym.spaces.Discrete)
    obs, info = env.reset(seed=3)
    for _ in range(15):
        mask = info["action_mask"]
        allowed = [info["action_names"][i] for i in np.flatnonzero(mask)]
        assert allowed == info["admissible_actions"]
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(mask)[0]))
        assert info["action_error"] is None
        if terminated:
            break


def test_index_actions_masked_index_is_an_error_not_a_crash():
    env = IndexActions(gym.make("Mystery-BW-v0"))
    _, info = env.reset(seed=0)
    blocked = int(np.flatnonzero(info["action_mask"] == 0)[0])
    *_, info = env.step(blocked)
    assert info["action_error"]["kind"] == "inapplicable"
    *_, info = env.step(env.action_space.n - 1)
    assert info["action_error"] is not None


def test_record_episode_writes_every_step(tmp_path):
    path = tmp_path / "run" / "episodes.jsonl"
    env = RecordEpisode(gym.make("Blocksworld-v0"), path)
    _, info = env.reset(seed=0)
    env.step(info["admissible_actions"][0])
    env.step("(nonsense)")
    env.reset(seed=1)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(r["episode"], r["step"], r["event"]) for r in lines] == [
        (0, 0, "reset"), (0, 1, "step"), (0, 2, "step"), (1, 0, "reset")]
    assert lines[2]["info"]["action_error"]["kind"] == "unknown"
    assert lines[0]["info"]["domain_pddl"].startswith("(define")
