"""The TextWorld Express games besides CoinCollector (TWX-*-v0), through TWX's simulator."""

import random
import shutil

import gymnasium as gym
import pytest
from gymnasium.envs.registration import register, registry
from gymnasium.utils.env_checker import check_env

from planloop.envs import TWX_ENVIRONMENTS
from planloop.envs.twx import GAMES

pytestmark = pytest.mark.slow  # whole studies and campaigns: -m "not slow" skips them

for _id, (_entry_point, _max_steps) in TWX_ENVIRONMENTS.items():
    if _id not in registry:
        register(
            id=_id,
            entry_point=_entry_point,
            max_episode_steps=_max_steps,
            disable_env_checker=False,
        )

pytestmark = [
    pytest.mark.filterwarnings("error:.*not within the observation space"),
    pytest.mark.slow,
]  # a Java simulator per game: -m "not slow" skips them
IDS = list(TWX_ENVIRONMENTS)
INFO = {
    "admissible_actions": list,
    "task": str,
    "won": bool,
    "feedback": str,
    "action_error": dict,
    "score": float,
    "moves": int,
    "look": str,
    "inventory": str,
    "instance": int,
}
ERROR = ("kind", "message", "unmet", "cause")
GARBAGE = ["fly to the moon", "", "   ", "take", "ñandú ☃", "x" * 2000, "look around\nlook"]


def needs_twx():
    pytest.importorskip("textworld_express")
    if shutil.which("java") is None:
        pytest.skip("TextWorld Express needs java")


def make(env_id, **kwargs):
    needs_twx()
    return gym.make(env_id, **kwargs)


@pytest.fixture(scope="module", params=IDS)
def env(request):
    env = make(request.param)
    yield env
    env.close()


def assert_info(info):
    assert {key: type(value) for key, value in info.items()} == INFO
    assert tuple(info["action_error"]) == ERROR
    assert all(isinstance(action, str) for action in info["admissible_actions"])


def test_the_seven_games_are_registered_with_their_classes():
    assert IDS == [
        "TWX-CookingWorld-v0",
        "TWX-TWC-v0",
        "TWX-MapReader-v0",
        "TWX-Arithmetic-v0",
        "TWX-Sorting-v0",
        "TWX-SimonSays-v0",
        "TWX-PeckingOrder-v0",
    ]
    assert [env.game for env in GAMES.values()] == [
        "cookingworld",
        "twc",
        "mapreader",
        "arithmetic",
        "sorting",
        "simonsays",
        "peckingorder",
    ]


def test_reset_shows_the_task_and_the_admissible_actions(env):
    obs, info = env.reset(seed=3)
    assert_info(info)
    assert obs == info["feedback"] and obs in env.observation_space
    assert info["admissible_actions"] and info["task"] and info["instance"] == 3
    assert not info["won"] and not info["action_error"]["kind"]


def test_walks_of_admissible_and_garbage_commands_keep_info_stable(env):
    rng = random.Random(0)
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        for _ in range(25):
            garbage = rng.random() < 0.3
            command = rng.choice(GARBAGE if garbage else info["admissible_actions"])
            obs, reward, terminated, truncated, info = env.step(command)
            assert_info(info)
            assert obs in env.observation_space and isinstance(reward, float)
            error = info["action_error"]
            assert error["kind"] == ("unknown" if garbage else "")
            assert bool(error["cause"]) == garbage and error["message"] == (obs if garbage else "")
            if terminated or truncated:
                break


def test_gold_path_wins(env):
    for seed in range(3):
        env.reset(seed=seed)
        gold = env.unwrapped.gold_path()
        assert gold
        for command in gold:  # twc's may go on after the win
            *_, terminated, truncated, info = env.step(command)
            assert not truncated
            if terminated:
                break
        assert terminated and info["won"] and info["score"] == 1.0


def test_seeds_and_instances_replay_the_same_game(env):
    def game():  # twc's gold agent wanders at random: its path varies, the game does not
        gold = env.unwrapped.gold_path() if env.unwrapped.game != "twc" else None
        return obs, info, gold

    obs, info = env.reset(seed=11)
    first = game()
    obs, info = env.reset(options={"instance": 11})
    assert game() == first
    obs, info = env.reset(seed=11)
    assert game() == first
    drawn = env.reset()[1]["instance"]
    env.reset(seed=11)
    assert env.reset()[1]["instance"] == drawn
    assert len({env.reset(seed=seed)[0] for seed in range(5)}) > 1


def test_env_checker_passes(env):
    check_env(env.unwrapped)


def test_help_and_non_text_actions(env):
    env.reset(seed=1)
    obs, *_, info = env.step("help")
    assert obs == info["task"] and not info["action_error"]["kind"]
    with pytest.raises(TypeError, match="command string"):
        env.step(3)


@pytest.mark.parametrize(
    "env_id,kwargs,properties,gold_length",
    [
        (
            "TWX-CookingWorld-v0",
            {
                "num_locations": 3,
                "num_ingredients": 2,
                "num_distractor_items": 0,
                "include_doors": False,
                "limit_inventory_size": False,
            },
            {
                "numLocations": 3,
                "numIngredients": 2,
                "numDistractorItems": 0,
                "includeDoors": 0,
                "limitInventorySize": 0,
            },
            None,
        ),
        (
            "TWX-TWC-v0",
            {"num_locations": 1, "num_items_to_put_away": 1, "include_doors": True},
            {"numLocations": 1, "numItemsToPutAway": 1, "includeDoors": 1},
            None,
        ),
        (
            "TWX-MapReader-v0",
            {"num_locations": 30, "max_distance_apart": 6, "max_distractor_items_per_location": 0},
            {"numLocations": 30, "maxDistanceApart": 6, "maxDistractorItemsPerLocation": 0},
            None,
        ),
        (
            "TWX-SimonSays-v0",
            {"game_length": 12, "num_distractors": 0, "memorization": True},
            {"gameLength": 12, "numDistractors": 0},
            12,
        ),
    ],
)
def test_parameters_reach_the_game(env_id, kwargs, properties, gold_length):
    env = make(env_id, fold="dev", **kwargs)
    env.reset(seed=2)
    generated = env.unwrapped._game.getGenerationProperties()
    assert {name: generated[name] for name in properties} == properties
    assert generated["gameSet"] == 2  # the dev fold
    gold = env.unwrapped.gold_path()
    assert gold_length is None or len(gold) == gold_length
    for command in gold:
        obs, _, terminated, _, info = env.step(command)
        assert obs in env.observation_space  # memorized simonsays answers with nothing
    assert terminated and info["won"]
    env.close()


def test_sorting_in_the_wrong_order_ends_the_episode_lost():
    env = make("TWX-Sorting-v0", fold="test")
    env.reset(seed=4)
    take, put, *_ = env.unwrapped.gold_path()[2:]  # the second smallest first
    env.step(take)
    *_, terminated, truncated, info = env.step(put)
    assert terminated and not truncated and not info["won"]
    env.close()


def test_a_world_twx_cannot_build_is_a_value_error_and_the_env_goes_on():
    env = make("TWX-MapReader-v0", num_locations=2, max_distance_apart=2)
    with pytest.raises(ValueError, match="cannot generate instance 1 .*distance apart"):
        env.reset(seed=1)
    _, info = env.reset(seed=0)
    assert info["instance"] == 0 and info["admissible_actions"]
    env.close()


@pytest.mark.parametrize(
    "env_id,kwargs,error,match",
    [
        (
            "TWX-CookingWorld-v0",
            {"num_locations": 12},
            ValueError,
            "num_locations must be an integer from 1 to 11, not 12",
        ),
        ("TWX-CookingWorld-v0", {"num_ingredients": 0}, ValueError, "num_ingredients .* 1 to 5"),
        ("TWX-CookingWorld-v0", {"include_doors": 1}, TypeError, "include_doors must be True or"),
        ("TWX-TWC-v0", {"num_items_to_put_away": 5}, ValueError, "from 1 to 4, not 5"),
        ("TWX-TWC-v0", {"num_locations": 4}, ValueError, "from 1 to 3, not 4"),
        ("TWX-MapReader-v0", {"num_locations": 49}, ValueError, "from 2 to 48, not 49"),
        ("TWX-MapReader-v0", {"max_distance_apart": 9}, ValueError, "from 1 to 8, not 9"),
        ("TWX-SimonSays-v0", {"game_length": 1001}, ValueError, "from 1 to 1000"),
        ("TWX-SimonSays-v0", {"num_distractors": "3"}, TypeError, "num_distractors must be"),
        (
            "TWX-Arithmetic-v0",
            {"num_locations": 3},
            TypeError,
            "ArithmeticEnv takes no argument 'num_locations'; its arguments are fold, step_limit",
        ),
        ("TWX-Sorting-v0", {"fold": "valid"}, ValueError, "fold must be one of train, dev, test"),
        ("TWX-PeckingOrder-v0", {"step_limit": 0}, ValueError, "step_limit must be"),
        ("TWX-TWC-v0", {"max_obs_length": 0}, ValueError, "max_obs_length must be"),
    ],
)
def test_bad_arguments_are_refused_before_the_game_starts(env_id, kwargs, error, match):
    with pytest.raises(error, match=match):
        gym.make(env_id, **kwargs)
