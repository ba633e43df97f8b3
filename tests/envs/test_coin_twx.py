"""backend="twx": the real TextWorld Express game behind the same interface."""

import json
import shutil
from pathlib import Path

import gymnasium as gym
import pytest

import planloop  # noqa: F401

pytest.importorskip("textworld_express")
if shutil.which("java") is None:
    pytest.skip("TextWorld Express needs java", allow_module_level=True)

RECORDED = Path(__file__).parents[1] / "data" / "twx_coin" / "coin_L5_D1_X0_train_s3.json"


@pytest.fixture(scope="module")
def twx_env():
    env = gym.make(
        "CoinCollector-v0",
        backend="twx",
        num_locations=5,
        include_doors=True,
        num_distractor_items=0,
        fold="train",
    )
    yield env
    env.close()


@pytest.mark.slow
def test_twx_backend_reproduces_the_recording(twx_env):
    game = json.loads(RECORDED.read_text())
    for episode in game["episodes"]:
        obs, info = twx_env.reset(seed=game["seed"])
        assert obs == episode["steps"][0]["obs"]
        for step in episode["steps"][1:]:
            obs, reward, terminated, truncated, info = twx_env.step(step["action"])
            assert obs == step["obs"]
            assert info["admissible_actions"] == step["valid_actions"]
            assert terminated == step["tasksuccess"]


def test_twx_gold_path_wins_and_native_agrees_on_the_house(twx_env):
    twx_env.reset(seed=3)
    gold = twx_env.unwrapped.gold_path()
    for command in gold:
        *_, terminated, _, info = twx_env.step(command)
    assert terminated and info["won"]
    native = gym.make("CoinCollector-v0", layout=RECORDED)
    native.reset()
    for command in gold:
        *_, terminated, _, _ = native.step(command)
    assert terminated


def test_unknown_commands_are_flagged(twx_env):
    twx_env.reset(seed=3)
    *_, info = twx_env.step("fly north")
    assert info["action_error"]["kind"] == "unknown"


def test_unknown_backend_is_refused():
    with pytest.raises(ValueError, match="backend"):
        gym.make("CoinCollector-v0", backend="jericho")
