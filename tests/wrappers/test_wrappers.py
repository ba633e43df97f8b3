"""ObfuscateNames, HideAdmissibleActions, IndexActions, RecordEpisode."""

import json
import random

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import planloop  # noqa: F401
from planloop.wrappers import HideAdmissibleActions, IndexActions, ObfuscateNames, RecordEpisode
from planloop.wrappers.index_actions import MAX_COMMANDS

from conftest import DATA

TEXT_GAMES = {
    "CoinCollector-v0": {"num_locations": 6},
    "ALFWorld-v0": {
        "game_file": DATA / "alfworld/games/pick_heat_then_place_in_recep-"
        "Mug-Cabinet-23/game.tw-pddl"
    },
}

TRUE_NAMES = ("clear", "ontable", "handempty", "holding", "pick-up", "put-down", "stack", "unstack")


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
    assert not info_ok["action_error"]["kind"]


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


@pytest.mark.slow
def test_index_actions_mask_matches_admissible_actions():
    env = IndexActions(gym.make("Mystery-BW-v0"))
    assert isinstance(env.action_space, gym.spaces.Discrete)
    obs, info = env.reset(seed=3)
    for _ in range(15):
        mask = info["action_mask"]
        allowed = [info["action_names"][i] for i in np.flatnonzero(mask)]
        assert allowed == info["admissible_actions"]
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(mask)[0]))
        assert not info["action_error"]["kind"]
        if terminated:
            break


@pytest.mark.slow
def test_index_actions_masked_index_is_an_error_not_a_crash():
    env = IndexActions(gym.make("Mystery-BW-v0"))
    _, info = env.reset(seed=0)
    blocked = int(np.flatnonzero(info["action_mask"] == 0)[0])
    *_, info = env.step(blocked)
    assert info["action_error"]["kind"] == "inapplicable"
    *_, info = env.step(env.action_space.n - 1)
    assert info["action_error"]["kind"]


def check_text_indices(info: dict, size: int = MAX_COMMANDS) -> None:
    """Index ``i`` names the ``i``-th admissible command; the rest are masked and ``""``."""
    admissible = info["admissible_actions"]
    assert info["action_names"] == admissible + [""] * (size - len(admissible))
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].shape == (size,)
    assert list(np.flatnonzero(info["action_mask"])) == list(range(len(admissible)))


def text_game(env_id: str):
    return gym.make(env_id, **TEXT_GAMES[env_id])


@pytest.mark.parametrize("env_id", list(TEXT_GAMES))
def test_index_actions_plays_a_text_game_by_random_valid_indices(env_id):
    env, plain = IndexActions(text_game(env_id)), text_game(env_id)
    assert env.action_space == gym.spaces.Discrete(MAX_COMMANDS)
    rng = random.Random(0)
    (obs, info), (plain_obs, plain_info) = env.reset(seed=1), plain.reset(seed=1)
    for _ in range(30):
        assert obs == plain_obs
        check_text_indices(info)
        index = rng.choice(np.flatnonzero(info["action_mask"]))
        obs, reward, terminated, _, info = env.step(index)
        plain_obs, plain_reward, *_, plain_info = plain.step(
            plain_info["admissible_actions"][index]
        )
        assert reward == plain_reward and info["action_error"] == plain_info["action_error"]
        if terminated:
            break


@pytest.mark.parametrize("env_id", list(TEXT_GAMES))
def test_index_actions_wins_a_text_game(env_id):
    env = IndexActions(text_game(env_id))
    _, info = env.reset(seed=1)
    base = env.unwrapped
    plan = base.gold_path() if env_id == "CoinCollector-v0" else base.walkthrough()
    for command in plan:
        *_, info = env.step(info["action_names"].index(command))
    assert info["won"]


@pytest.mark.parametrize("env_id", list(TEXT_GAMES))
def test_index_actions_index_without_a_command_is_an_invalid_command(env_id):
    env, plain = IndexActions(text_game(env_id)), text_game(env_id)
    _, before = env.reset(seed=1)
    plain.reset(seed=1)
    world = env.unwrapped.world_pddl()
    obs, reward, terminated, _, info = env.step(MAX_COMMANDS - 1)
    assert obs == plain.step("xyzzy")[0] and reward == 0 and not terminated
    assert info["action_error"]["kind"] == "unknown"
    assert env.unwrapped.world_pddl() == world
    assert info["admissible_actions"] == before["admissible_actions"]


def test_index_actions_refuses_more_commands_than_max_actions():
    env = IndexActions(text_game("CoinCollector-v0"), max_actions=2)
    with pytest.raises(
        ValueError,
        match=r"state has \d+ admissible commands, more than "
        r"max_actions=2",
    ):
        env.reset(seed=1)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_index_actions_vectorises(mode):
    envs = gym.make_vec(
        "planloop:CoinCollector-v0", num_envs=2, vectorization_mode=mode, wrappers=[IndexActions]
    )
    try:
        assert envs.action_space == gym.spaces.MultiDiscrete([MAX_COMMANDS] * 2)
        _, infos = envs.reset(seed=[0, 1])
        for _ in range(3):
            assert infos["action_mask"].shape == (2, MAX_COMMANDS)
            for i in range(2):
                check_text_indices(
                    {
                        key: infos[key][i]
                        for key in ("admissible_actions", "action_names", "action_mask")
                    }
                )
            *_, infos = envs.step(np.array([0, MAX_COMMANDS - 1]))
            assert infos["action_error"]["kind"][1] == "unknown"
            assert infos["action_error"]["kind"][0] != "unknown"
    finally:
        envs.close()


def test_record_episode_writes_every_step(tmp_path):
    path = tmp_path / "run" / "episodes.jsonl"
    env = RecordEpisode(gym.make("Blocksworld-v0"), path)
    _, info = env.reset(seed=0)
    env.step(info["admissible_actions"][0])
    env.step("(nonsense)")
    env.reset(seed=1)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(r["episode"], r["step"], r["event"]) for r in lines] == [
        (0, 0, "reset"),
        (0, 1, "step"),
        (0, 2, "step"),
        (1, 0, "reset"),
    ]
    assert lines[2]["info"]["action_error"]["kind"] == "unknown"
    assert lines[0]["info"]["domain_pddl"].startswith("(define")


def test_auto_take_coin_takes_the_coin_when_seen_and_offers_moves_and_doors_only():
    from planloop.wrappers import AutoTakeCoin

    env = AutoTakeCoin(gym.make("CoinCollector-v0", num_locations=3))
    obs, info = env.reset(seed=0)
    assert not {"look around", "inventory", "take coin"} & set(info["admissible_actions"])
    obs, reward, terminated, _, info = env.step("move south")  # the coin is in the corridor
    assert terminated and info["won"] and reward == 1
    assert "\n> take coin\nYou take the coin." in obs


def test_auto_take_coin_takes_a_coin_in_view_at_reset_at_the_first_step():
    from planloop.wrappers import AutoTakeCoin

    env = AutoTakeCoin(gym.make("CoinCollector-v0", num_locations=11))
    _, info = env.reset(seed=0)  # this house's coin lies in the kitchen
    assert "take coin" not in info["admissible_actions"]
    obs, _, terminated, _, info = env.step("move east")
    assert terminated and info["won"] and obs.startswith("> take coin\n")
