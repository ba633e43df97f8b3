"""Whatever a model sends as a command, every environment answers inside its spaces,
keeps its state and keeps the shape of ``info``; a non-string action is a TypeError."""

import gymnasium as gym
import numpy as np
import pytest

import planloop  # noqa: F401
from planloop.envs import ENVIRONMENTS

from conftest import DATA

ALFWORLD_GAME = DATA / "alfworld/games/pick_and_place_simple-CellPhone-Bed-322/game.tw-pddl"
DOMAIN = DATA / "planbench/blocksworld/generated_domain.pddl"
PROBLEM = DATA / "planbench/blocksworld/generated_basic/instance-1.pddl"
OPTIONS = {
    "PDDL-v0": {"domain": DOMAIN, "problem": PROBLEM},
    "ALFWorld-v0": {"game_file": ALFWORLD_GAME},
    "ContingentPDDL-v0": {
        "domain": DATA / "contingent/lamps/domain.pddl",
        "problem": DATA / "contingent/lamps/problem.pddl",
    },
}

NASTY = [
    "\x00",
    "pick-up\x00a",
    "feast a b\x1b[2J",
    "\u200fattack a",
    "attack \U0001f600",
    "a\u0301ttack a",
    "(unstack \u202e b a)",
    "take coin\r\nmove north",
    "\t\v\f",
    "x" * 1_000_000,
    "(" * 5_000,
    "unknown-verb " + "\u00e9" * 20_000,
    "",
]


def make(env_id):
    return gym.make(env_id, **OPTIONS.get(env_id, {}))


def true_state(env):
    """The true state: a PDDL env's bitset, else the hidden world as PDDL."""
    inner = env.unwrapped
    return inner.state if hasattr(inner, "state") else inner.world_pddl()


@pytest.mark.parametrize("env_id", list(ENVIRONMENTS))
def test_nasty_commands_stay_inside_the_spaces(env_id):
    env = make(env_id)
    obs, info = env.reset(seed=0)
    keys = set(info)
    for command in NASTY:
        before = true_state(env)
        obs, reward, terminated, truncated, info = env.step(command)
        assert env.observation_space.contains(obs), (command[:40], obs[:200])
        assert set(info) == keys
        assert info["action_error"]["kind"] and len(info["feedback"]) < 2_000
        assert reward == 0 and not terminated
        assert true_state(env) == before


@pytest.mark.parametrize("env_id", list(ENVIRONMENTS))
@pytest.mark.parametrize(
    "action",
    [np.array(["go", "north"]), None, 3, b"look", ["look"]],
    ids=["array", "None", "int", "bytes", "list"],
)
def test_a_non_string_action_is_a_type_error(env_id, action):
    env = make(env_id)
    env.reset(seed=0)
    with pytest.raises(TypeError, match="an action is a command string"):
        env.unwrapped.step(action)


def test_numpy_strings_are_commands():
    env = make("Blocksworld-v0")
    _, info = env.reset(seed=0)
    _, _, _, _, info = env.step(np.str_(info["admissible_actions"][0]))
    assert not info["action_error"]["kind"]


@pytest.mark.parametrize("env_id", list(ENVIRONMENTS))
def test_error_messages_quote_the_command_short_and_printable(env_id):
    env = make(env_id)
    env.reset(seed=0)
    *_, info = env.step("take \U0001f680 from " + "x" * 100_000)
    message = info["action_error"]["message"]
    assert len(message) < 500 and all(" " <= ch <= "~" or ch == "\n" for ch in message)
