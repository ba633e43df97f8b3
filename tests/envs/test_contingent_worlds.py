"""ContingentPDDL-v0's chosen hidden worlds (``reset(options={"hidden": ...})``,
``hidden=PATH``, a problem's own ``:hidden`` sections) and what its observations hold."""

from __future__ import annotations

import random
import re
from pathlib import Path

import gymnasium as gym
import pytest
from gymnasium.envs.registration import register, registry

from planloop.envs import CONTINGENT_ENVIRONMENTS
from planloop.envs.contingent import GROUPED
from planloop.pddl import parse
from planloop.pddl.model import Atom

TESTS = Path(__file__).parent.parent / "data" / "contingent"
SAMPLE = Path(__file__).parents[2] / "planloop" / "envs" / "data" / "contingent"
LAMPS = TESTS / "lamps"
SAMPLE_IDS = tuple(i for i in CONTINGENT_ENVIRONMENTS if i != "ContingentPDDL-v0")


@pytest.fixture(scope="module", autouse=True)
def registered():
    for env_id, (entry_point, steps) in CONTINGENT_ENVIRONMENTS.items():
        if env_id not in registry:
            register(id=env_id, entry_point=entry_point, max_episode_steps=steps)


def _lamps(**kwargs):
    return gym.make(
        "ContingentPDDL-v0", domain=LAMPS / "domain.pddl", problem=LAMPS / "problem.pddl", **kwargs
    )


def _true(env, fact: str) -> bool:
    """Whether ``fact`` holds in the hidden world now (a judge's view)."""
    ct = env.unwrapped.contingent
    name, *args = fact.strip("()").split()
    return bool(env.unwrapped.world >> ct.task.fact_id(Atom(name, tuple(args))) & 1)


def _doors_world(pick: int) -> list[str]:
    """A world of doors15: in each wall, the ``pick``-th door of its oneof open."""
    _, problem = parse(
        SAMPLE / "doors15" / "domain.pddl", SAMPLE / "doors15" / "problem.pddl", contingent=True
    )
    return [str(c.literals[pick].atom) for c in problem.clauses]


def test_reset_plays_the_world_a_hidden_form_gives():
    env = gym.make("Contingent-Doors-v0")
    for pick in (0, 7):
        atoms = _doors_world(pick)
        env.reset(seed=0, options={"hidden": "(:hidden " + " ".join(atoms) + ")"})
        assert all(_true(env, a) for a in atoms)
        assert not _true(env, _doors_world(pick + 1)[0])
    env.reset(seed=0, options={"hidden": _doors_world(3)})  # a list of atoms
    assert _true(env, _doors_world(3)[5])


def test_the_chosen_world_is_what_sensing_tells():
    env = _lamps(obs_format="pddl")
    for world in (["(lit b)"], ["(lit a)", "(lit c)", "(lit d)"]):
        env.reset(options={"hidden": world})
        for lamp in "abcd":
            _, _, _, _, info = env.step(f"(look {lamp})")
            assert info["sensed"] == [{"fact": f"(lit {lamp})", "value": f"(lit {lamp})" in world}]


def test_a_world_outside_the_initial_belief_is_a_value_error_naming_the_constraint():
    env = _lamps()
    with pytest.raises(ValueError, match=r"breaks \(oneof \(lit b\) \(lit c\)\)"):
        env.reset(options={"hidden": ["(lit b)", "(lit c)"]})
    with pytest.raises(ValueError, match=r"breaks \(or \(lit d\) \(not \(lit a\)\)\)"):
        env.reset(options={"hidden": "(:hidden (lit a) (lit b))"})
    with pytest.raises(ValueError, match=r"\(checked a\) true, but it is false in every world"):
        env.reset(options={"hidden": "(:hidden (lit b) (checked a))"})
    with pytest.raises(ValueError, match="holds 2 worlds: give one"):
        env.reset(options={"hidden": "(:hidden (lit b)) (:hidden (lit c))"})
    with pytest.raises(ValueError, match="undeclared object 'z'"):
        env.reset(options={"hidden": "(:hidden (lit z))"})


@pytest.mark.parametrize(
    "value, error, words",
    [
        (3, TypeError, "options['hidden'] must be a path or text of '(:hidden ...)' sections"),
        (["(lit b)", 4], TypeError, "options['hidden'][1] must be an atom"),
        ("", ValueError, "options['hidden'] is empty"),
        ("no-such-file.pddl", ValueError, "no such file or folder"),
    ],
)
def test_a_hidden_option_of_the_wrong_kind_names_the_option(value, error, words):
    with pytest.raises(error, match=re.escape(words)):
        _lamps().reset(options={"hidden": value})


def test_only_contingent_envs_take_a_hidden_option():
    env = gym.make("Blocksworld-v0")
    with pytest.raises(ValueError, match="unknown reset option 'hidden'; the options are instance"):
        env.reset(options={"hidden": "(:hidden)"})


def test_a_problem_with_hidden_sections_given_as_the_option(tmp_path):
    text = (
        (LAMPS / "problem.pddl")
        .read_text()
        .replace("(:goal", "(:hidden (lit c) (lit d))\n  (:goal")
    )
    env = _lamps()
    env.reset(options={"hidden": text})
    assert _true(env, "(lit c)") and _true(env, "(lit d)") and not _true(env, "(lit a)")
    domain, problem = parse(LAMPS / "domain.pddl", text, contingent=True)
    env.reset(options={"hidden": problem})
    assert _true(env, "(lit c)") and _true(env, "(lit d)")


def test_hidden_file_worlds_play_in_order(tmp_path):
    path = tmp_path / "hidden.pddl"
    path.write_text(
        "(define (problem lamps-4)\n"
        "  (:hidden (lit b))\n  (:hidden (lit c) (lit d))\n  (:hidden (lit a) (lit b) (lit d)))"
    )
    env = _lamps(hidden=path)
    played = []
    for _ in range(4):
        _, info = env.reset()
        played.append((info["instance"], [_true(env, f"(lit {x})") for x in "abcd"]))
    worlds = [
        [False, True, False, False],
        [False, False, True, True],
        [True, True, False, True],
    ]
    assert played == [(i, worlds[i % 3]) for i in range(4)]
    env.reset(seed=2)
    assert [_true(env, f"(lit {x})") for x in "abcd"] == worlds[2]
    env.reset(options={"instance": 4})
    assert [_true(env, f"(lit {x})") for x in "abcd"] == worlds[1]


def test_a_problem_plays_its_own_hidden_sections():
    text = (
        (LAMPS / "problem.pddl")
        .read_text()
        .replace("(:goal", "(:hidden (lit c))\n  (:hidden (lit b) (lit d))\n  (:goal")
    )
    env = gym.make("ContingentPDDL-v0", domain=LAMPS / "domain.pddl", problem=text)
    for seed in range(4):
        env.reset(seed=seed)
        assert _true(env, "(lit c)") == (seed % 2 == 0)
        assert _true(env, "(lit d)") == (seed % 2 == 1)


def test_a_bad_hidden_argument_is_refused_when_made():
    with pytest.raises(TypeError, match="hidden must be a path or text"):
        _lamps(hidden=3)
    with pytest.raises(ValueError, match="no such file or folder"):
        _lamps(hidden="missing-hidden.pddl")


# -- what the agent reads -----------------------------------------------------------------
@pytest.mark.parametrize("env_id", SAMPLE_IDS)
@pytest.mark.parametrize("obs_format", ["text", "pddl"])
def test_observations_stay_under_8000_characters(env_id, obs_format):
    env = gym.make(env_id, obs_format=obs_format)
    obs, info = env.reset(seed=1)
    assert len(obs) < 8000
    rng = random.Random(1)
    for _ in range(40):
        obs, _, terminated, truncated, info = env.step(rng.choice(info["admissible_actions"]))
        assert len(obs) < 8000
        if terminated or truncated:
            break


def test_static_facts_are_stated_once_and_the_full_lists_stay_in_info():
    env = gym.make("Contingent-Doors-v0")
    obs, info = env.reset(seed=0)
    lines = obs.split("\n")
    assert lines[0] == GROUPED
    assert lines[1].startswith("Never change: adj (symmetric) p1-1: p1-2 p2-1; p1-2: p1-3 p2-2")
    assert "opened p1-1 p1-2" in lines[1]  # known at reset, and no action changes it
    assert lines[2] == "Known: p1-8 is at"
    assert lines[3].startswith("Unknown: opened p2-1 p2-2") and lines[4].startswith("Goal: ")
    assert len(info["known_facts"]) == 961 and len(info["unknown_facts"]) == 105
    obs, _, _, _, info = env.step("(move p1-8 p1-9)")
    assert obs.split("\n")[1:] == ["Known: p1-9 is at", lines[3]]
    assert "(adj p1-1 p1-2)" in info["known_facts"]
    again = gym.make("Contingent-Doors-v0", repeat_static=True)
    again.reset(seed=0)
    obs, *_ = again.step("(move p1-8 p1-9)")
    assert obs.split("\n")[1:3] == lines[:2]


def test_what_sensing_learns_of_a_fixed_fact_is_known_from_then_on():
    env = gym.make("Contingent-Doors-v0")
    env.reset(seed=0, options={"hidden": _doors_world(7)})  # (opened p2-8) among them
    obs, *_ = env.step("(sense-door p1-8 p2-8)")
    assert "Known: p1-8 is at and p2-8 is opened" in obs
    obs, *_ = env.step("(move p1-8 p1-9)")
    assert "Known: p1-9 is at and p2-8 is opened" in obs
    obs, *_ = env.step("(sense-door p1-9 p2-9)")
    assert "p2-9" not in obs.split("Unknown: ")[1].split()  # known false
