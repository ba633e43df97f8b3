"""Bad ``gym.make`` keyword arguments and ``reset`` seeds and options: each a ValueError
(a wrong value) or TypeError (a wrong type) whose message names the option."""

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import planloop  # noqa: F401  (registers the environments)
from planloop.envs.baking import domain_text, problem_texts
from planloop.pddl import Limits

DOMAIN, PROBLEM = domain_text(), problem_texts()[0]
PDDL = {"domain": DOMAIN, "problem": PROBLEM}

MAKE = [  # env id, kwargs, error, words the message must hold
    (
        "CoinCollector-v0",
        {"num_locations": -1},
        ValueError,
        "num_locations must be an integer from 1 to 11, not -1",
    ),
    ("CoinCollector-v0", {"num_locations": 10**30}, ValueError, "num_locations"),
    ("CoinCollector-v0", {"num_locations": "5"}, TypeError, "num_locations"),
    ("CoinCollector-v0", {"num_locations": 2.5}, TypeError, "num_locations"),
    ("CoinCollector-v0", {"num_locations": True}, TypeError, "num_locations"),
    (
        "CoinCollector-v0",
        {"num_distractor_items": 11},
        ValueError,
        "num_distractor_items must be an integer from 0 to 10",
    ),
    ("CoinCollector-v0", {"include_doors": "no"}, TypeError, "include_doors must be True or False"),
    (
        "CoinCollector-v0",
        {"fold": "x"},
        ValueError,
        "fold must be one of dev, test, train, not 'x'",
    ),
    ("CoinCollector-v0", {"backend": 3}, TypeError, "backend must be one of native, twx, not 3"),
    ("CoinCollector-v0", {"layout": 123}, TypeError, "layout must be"),
    ("CoinCollector-v0", {"layout": "/nonexistent"}, ValueError, "layout"),
    ("CoinCollector-v0", {"layout": {}}, ValueError, "layout is not a TextWorld Express"),
    ("CoinCollector-v0", {"bogus": 1}, TypeError, "bogus"),
    ("MysteryRandom-BW-v0", {"names_seed": -1}, ValueError, "names_seed"),
    ("MysteryRandom-BW-v0", {"names_seed": "5"}, TypeError, "names_seed"),
    ("PDDL-v0", {**PDDL, "cache_size": -1}, ValueError, "cache_size must be an integer from 1 to"),
    ("PDDL-v0", {**PDDL, "cache_size": 10**30}, ValueError, "cache_size"),
    ("PDDL-v0", {**PDDL, "max_obs_length": 0}, ValueError, "max_obs_length"),
    ("PDDL-v0", {**PDDL, "max_obs_length": 2.5}, TypeError, "max_obs_length"),
    ("PDDL-v0", {**PDDL, "strict": "yes"}, TypeError, "strict must be True or False"),
    ("PDDL-v0", {**PDDL, "view": 3}, TypeError, "view must be a TaskView"),
    ("PDDL-v0", {**PDDL, "goal_distance": "x"}, ValueError, "goal_distance must be one of"),
    ("PDDL-v0", {**PDDL, "obs_format": "x"}, ValueError, "obs_format must be one of"),
    ("PDDL-v0", {**PDDL, "render_mode": "x"}, ValueError, "render_mode must be one of"),
    ("PDDL-v0", {**PDDL, "bogus": 1}, TypeError, "bogus"),
    ("PDDL-v0", {"domain": DOMAIN, "problem": None}, TypeError, "problem must be"),
    ("PDDL-v0", {"domain": DOMAIN, "problem": []}, ValueError, "problem must name at least"),
    ("PDDL-v0", {"domain": DOMAIN, "problem": [123]}, TypeError, "problem[0] must be"),
    ("PDDL-v0", {"domain": None, "problem": PROBLEM}, TypeError, "domain must be"),
    ("PDDL-v0", {"domain": "/nonexistent", "problem": PROBLEM}, ValueError, "domain: no such file"),
    ("PDDL-v0", {**PDDL, "limits": 5}, TypeError, "limits must be a Limits"),
    ("PDDL-v0", {**PDDL, "limits": {"max_bogus": 1}}, TypeError, "limits has no field 'max_bogus'"),
    ("PDDL-v0", {**PDDL, "limits": {"max_objects": -1}}, ValueError, "max_objects"),
    ("Blocksworld-v0", {"instances": 123}, TypeError, "instances must be"),
    ("Blocksworld-v0", {"instances": "/nonexistent"}, ValueError, "instances: no such file"),
    ("Blocksworld-v0", {"instances": []}, ValueError, "instances must name at least"),
    ("Mystery-BW-v0", {"instances": 123}, TypeError, "instances must be"),
    ("Baking-v0", {"obs_format": 1}, TypeError, "obs_format must be one of"),
    (
        "ALFWorld-v0",
        {"num_generated": -1},
        ValueError,
        "num_generated must be an integer from 1 to",
    ),
    ("ALFWorld-v0", {"num_generated": 10**30}, ValueError, "num_generated"),
    ("ALFWorld-v0", {"num_generated": "5"}, TypeError, "num_generated"),
    ("ALFWorld-v0", {"game_file": 123}, TypeError, "game_file must be"),
    ("ALFWorld-v0", {"game_file": "/nonexistent"}, ValueError, "no game file"),
    ("ALFWorld-v0", {"data_dir": "/nonexistent"}, ValueError, "data_dir"),
    ("ALFWorld-v0", {"split": "x"}, ValueError, "split must be one of"),
    ("ALFWorld-v0", {"task_types": 3}, TypeError, "task_types must be"),
    ("ALFWorld-v0", {"logic_dir": 3}, TypeError, "logic_dir must be"),
    ("ALFWorld-v0", {"logic_dir": "/nonexistent"}, ValueError, "logic_dir"),
    ("ALFWorld-v0", {"skip_flagged": "x"}, TypeError, "skip_flagged must be True or False"),
]


@pytest.mark.parametrize(
    "env_id, kwargs, error, words", MAKE, ids=[f"{e}-{sorted(k)[-1]}" for e, k, _, _ in MAKE]
)
def test_a_bad_keyword_argument_is_named(env_id, kwargs, error, words):
    with pytest.raises(error) as caught:
        gym.make(env_id, **kwargs).reset(seed=0)
    assert words in str(caught.value)


def test_an_empty_folder_of_problems_is_refused(tmp_path):
    for env_id, kwargs in (
        ("PDDL-v0", {"domain": DOMAIN, "problem": tmp_path}),
        ("Blocksworld-v0", {"instances": tmp_path}),
    ):
        with pytest.raises(ValueError, match="no .pddl files in"):
            gym.make(env_id, **kwargs)


RANGES = {
    "PDDL-v0": ({"domain": DOMAIN, "problem": list(problem_texts())}, 3),
    "Blocksworld-v0": ({}, 599),
    "Mystery-BW-v0": ({}, 599),
    "MysteryRandom-BW-v0": ({}, 599),
    "Baking-v0": ({}, 3),
    "ALFWorld-v0": ({}, 599),
    "CoinCollector-v0": ({}, 2**31 - 1),
}
RESET = [  # reset keywords, error, words the message must hold (after "instance ... to N")
    ({"options": {"instance": -1}}, ValueError, "not -1"),
    ({"options": {"instance": 10**30}}, ValueError, "not 1000000000000000000000000000000"),
    ({"options": {"instance": 2**31}}, ValueError, "not 2147483648"),
    ({"options": {"instance": "x"}}, TypeError, "not 'x'"),
    ({"options": {"instance": "3"}}, TypeError, "not '3'"),
    ({"options": {"instance": 2.5}}, TypeError, "not float 2.5"),
    ({"options": {"instance": True}}, TypeError, "not bool True"),
    ({"options": {"instance": None}}, TypeError, "not None"),
]


@pytest.mark.parametrize("env_id", RANGES)
@pytest.mark.parametrize(
    "reset, error, words", RESET, ids=[str(r[0]["options"]["instance"]) for r in RESET]
)
def test_a_bad_instance_names_the_range(env_id, reset, error, words):
    kwargs, last = RANGES[env_id]
    env = gym.make(env_id, **kwargs)
    with pytest.raises(error) as caught:
        env.reset(**reset)
    assert f"instance must be an integer from 0 to {last}, {words}" == str(caught.value)


@pytest.mark.parametrize("env_id", RANGES)
@pytest.mark.parametrize(
    "reset, error, words",
    [
        ({"seed": -1}, ValueError, "seed must be an integer of at least 0, not -1"),
        ({"seed": 2.5}, TypeError, "seed must be an integer"),
        ({"seed": "x"}, TypeError, "seed must be an integer"),
        (
            {"options": {"bogus": 1}},
            ValueError,
            "unknown reset option 'bogus'; the options are instance",
        ),
        ({"options": [("instance", 1)]}, TypeError, "options must be a dict"),
        ({"options": "instance"}, TypeError, "options must be a dict"),
    ],
    ids=["seed-1", "seed-float", "seed-str", "option-unknown", "options-list", "options-str"],
)
def test_a_bad_seed_or_option_is_named(env_id, reset, error, words):
    env = gym.make(env_id, **RANGES[env_id][0])
    with pytest.raises(error, match=words):
        env.reset(**reset)


def test_a_generated_world_refuses_a_seed_past_its_range():
    env = gym.make("CoinCollector-v0")
    assert env.reset(seed=2**31 - 1)[1]["instance"] == 2**31 - 1
    with pytest.raises(ValueError, match="seed must be an integer from 0 to 2147483647"):
        env.reset(seed=2**31)


def test_a_layout_is_instance_zero_only():
    env = gym.make(
        "CoinCollector-v0", layout={"rooms": [{"name": "kitchen", "objects": [{"name": "coin"}]}]}
    )
    assert env.reset(options={"instance": 0})[1]["instance"] == 0
    with pytest.raises(ValueError, match="instance must be 0, not 1"):
        env.reset(options={"instance": 1})


@pytest.mark.slow
@pytest.mark.parametrize("env_id", RANGES)
def test_the_defaults_and_good_values_still_work(env_id):
    kwargs, last = RANGES[env_id]
    env = gym.make(env_id, **kwargs)
    assert env.reset(seed=0, options={})[1]["instance"] >= 0
    for instance in (0, last):
        assert env.reset(options={"instance": instance})[1]["instance"] == instance
    if env_id != "CoinCollector-v0":
        check_env(env.unwrapped)


@pytest.mark.slow
@pytest.mark.parametrize(
    "env_id, kwargs",
    [("PDDL-v0", PDDL), ("Baking-v0", {}), ("Blocksworld-v0", {}), ("ALFWorld-v0", {})],
)
def test_limits_reach_the_core(env_id, kwargs):
    for limits in ({"max_ground_actions": 5}, Limits(max_ground_actions=5)):
        with pytest.raises(
            ValueError,
            match=r"more than the limit of 5 \(max_ground_actions\); "
            r"to accept more, pass limits=Limits",
        ):
            gym.make(env_id, limits=limits, **kwargs).reset(options={"instance": 0})
    assert gym.make(env_id, limits={"max_objects": 1000}, **kwargs).reset(seed=0)
