"""Exit paths of every environment: a step after the episode ended does nothing, pays
nothing and says so in the info's usual shape; a render_mode outside the metadata is a
ValueError."""

from __future__ import annotations

import importlib.util
import shutil
from importlib import resources
from pathlib import Path

import gymnasium as gym
import pytest

import planloop  # noqa: F401  (registers the environments)
from planloop.envs import ENVIRONMENTS, TWX_ENVIRONMENTS
from planloop.envs.text_env import EPISODE_OVER
from planloop.pddl.search import breadth_first

DOMAIN = """(define (domain d) (:predicates (p ?x) (q ?x))
  (:action go :parameters (?x) :precondition (p ?x) :effect (q ?x)))"""
PROBLEM = "(define (problem x) (:domain d) (:objects a) (:init (p a)) (:goal (q a)))"
BLOCKS2 = Path(str(resources.files("planloop.envs") / "data" / "contingent" / "blocks2"))
KWARGS = {
    "PDDL-v0": {"domain": DOMAIN, "problem": PROBLEM},
    "ContingentPDDL-v0": {
        "domain": BLOCKS2 / "domain.pddl",
        "problem": BLOCKS2 / "problem.pddl",
    },
}
ENDING = [
    "PDDL-v0",
    "Blocksworld-v0",
    "Mystery-BW-v0",
    "MysteryRandom-BW-v0",
    "Baking-v0",
    "CoinCollector-v0",
    "ALFWorld-v0",
    "ContingentPDDL-v0",
    "Contingent-Blocks-v0",
]
TWX = pytest.mark.skipif(
    importlib.util.find_spec("textworld_express") is None or shutil.which("java") is None,
    reason="the twx extra and java",
)


def make(env_id: str, **kwargs) -> gym.Env:
    return gym.make(env_id, **KWARGS.get(env_id, {}), **kwargs)


def winning(env: gym.Env) -> list[str]:
    """Commands that win the episode just reset."""
    base = env.unwrapped
    if hasattr(base, "walkthrough"):
        return base.walkthrough()
    if hasattr(base, "gold_path"):
        return base.gold_path()
    plan = breadth_first(base.task, timeout=60)
    assert plan is not None
    return base.view.commands(plan, base.task)


def shape(info: dict) -> dict:
    """Each key's type, and the keys of ``action_error``."""
    return {key: type(value) for key, value in info.items()} | {
        "action_error": tuple(info["action_error"])
    }


def check_ended(env: gym.Env) -> None:
    obs, info = env.reset(seed=1)
    first = shape(info)
    commands = winning(env)
    paid = 0.0
    for command in commands:
        obs, reward, terminated, truncated, info = env.step(command)
        paid += reward
    assert terminated and info["won"] and paid == 1.0
    final = info
    for command in [commands[-1], commands[0], "look", "(nothing)"]:
        obs, reward, terminated, truncated, info = env.step(command)
        assert (obs, reward, terminated, truncated) == (EPISODE_OVER, 0.0, True, False)
        assert shape(info) == first
        assert info["feedback"] == EPISODE_OVER and info["action_error"]["kind"] == "episode_over"
        assert info["action_error"]["message"] == EPISODE_OVER
        same = {k: v for k, v in info.items() if k not in ("feedback", "action_error")}
        assert same == {k: v for k, v in final.items() if k not in ("feedback", "action_error")}
    assert env.render() is None
    with pytest.raises(TypeError):  # an action that is not text is refused, over or not
        env.step(7)
    env.reset(seed=1)
    obs, reward, terminated, *_ = env.step(commands[0])
    assert obs != EPISODE_OVER and terminated == (len(commands) == 1)


@pytest.mark.parametrize("env_id", ENDING)
def test_a_step_after_the_end_pays_nothing_and_says_so(env_id):
    check_ended(make(env_id))


@TWX
@pytest.mark.slow
def test_a_twx_game_after_its_end_pays_nothing():
    env = make("TWX-Arithmetic-v0")
    try:
        check_ended(env)
    finally:
        env.close()


@pytest.mark.parametrize("env_id", [*ENVIRONMENTS, *TWX_ENVIRONMENTS])
@pytest.mark.parametrize("mode", [1, "rgb_array", "ansi_list", b"ansi"])
def test_a_render_mode_outside_the_metadata_is_a_value_error(env_id, mode):
    with pytest.raises(ValueError, match="render_mode must be one of ansi, human or None"):
        make(env_id, render_mode=mode)


# -- an episode whose goal holds at reset ends there ------------------------------------
HELD = "(define (problem x) (:domain d) (:objects a) (:init (p a) (q a)) (:goal (q a)))"
BLOCKS_HELD = """(define (problem held) (:domain blocksworld-4ops) (:objects a b)
  (:init (handempty) (clear a) (on a b) (ontable b)) (:goal (and (on a b))))"""
CONTINGENT_DOMAIN = """(define (domain c) (:requirements :strips)
  (:predicates (p) (q) (r)) (:action go :parameters () :precondition (p) :effect (q)))"""


def contingent(goal: str) -> gym.Env:
    """A contingent task with (r) unknown at the start and ``goal``."""
    problem = f"(define (problem y) (:domain c) (:init (p) (q) (unknown (r))) (:goal {goal}))"
    return gym.make("ContingentPDDL-v0", domain=CONTINGENT_DOMAIN, problem=problem)


def held(env_id: str, tmp_path: Path) -> gym.Env:
    """``env_id`` made on a task whose goal holds in its initial state (belief)."""
    if env_id == "PDDL-v0":
        return gym.make(env_id, domain=DOMAIN, problem=HELD)
    if env_id == "ContingentPDDL-v0":
        return contingent("(q)")  # known in every world of the initial belief
    (tmp_path / "instance-1.pddl").write_text(BLOCKS_HELD)
    return gym.make(env_id, instances=str(tmp_path))


HELD_AT_RESET = ["PDDL-v0", "Blocksworld-v0", "Mystery-BW-v0", "MysteryRandom-BW-v0"]
HELD_AT_RESET += ["ContingentPDDL-v0"]


@pytest.mark.parametrize("env_id", HELD_AT_RESET)
def test_a_goal_that_holds_at_reset_is_won_there_and_ends_the_episode(env_id, tmp_path):
    env = held(env_id, tmp_path)
    obs, info = env.reset(seed=0)
    assert info["won"] is True and obs != EPISODE_OVER
    first = shape(info)
    for command in [*info["admissible_actions"][:1], "look", ""]:
        obs, reward, terminated, truncated, after = env.step(command)
        assert (obs, reward, terminated, truncated) == (EPISODE_OVER, 0.0, True, False)
        assert shape(after) == first and after["action_error"]["kind"] == "episode_over"
        assert after["won"] is True
        same = {k: v for k, v in after.items() if k not in ("feedback", "action_error")}
        assert same == {k: v for k, v in info.items() if k not in ("feedback", "action_error")}
    assert env.reset(seed=0)[1]["won"] is True  # every reset of it, not the first only


def test_a_contingent_goal_that_holds_in_some_worlds_only_is_not_won_at_reset():
    env = contingent("(r)")
    assert env.reset(seed=0)[1]["won"] is False
    obs, reward, terminated, truncated, info = env.step("go")
    assert obs != EPISODE_OVER and not terminated


@pytest.mark.parametrize("env_id", ["PDDL-v0", "ContingentPDDL-v0"])
def test_the_checker_passes_on_an_episode_won_at_reset(env_id, tmp_path):
    from gymnasium.utils.env_checker import check_env

    check_env(held(env_id, tmp_path).unwrapped, skip_render_check=True)


def test_a_vector_env_stacks_the_info_of_an_episode_won_at_reset():
    envs = gym.vector.SyncVectorEnv(
        [
            lambda: gym.make("PDDL-v0", domain=DOMAIN, problem=HELD),
            lambda: gym.make("PDDL-v0", domain=DOMAIN, problem=PROBLEM),
        ]
    )
    _, infos = envs.reset(seed=0)
    assert list(infos["won"]) == [True, False]
    _, rewards, terminated, _, infos = envs.step(["go a", "go a"])
    assert list(terminated) == [True, True] and list(rewards) == [0.0, 1.0]
    assert list(infos["action_error"]["kind"]) == ["episode_over", ""]
    envs.close()


def test_the_runner_ends_an_episode_won_at_reset_without_a_step():
    from planloop.policies import run_episode

    class Untouchable:
        name = "untouchable"

        def reset(self, obs, info):
            raise AssertionError("the policy is asked to play an episode already over")

        def act(self, obs, info):
            raise AssertionError("the policy is asked to play an episode already over")

    episode = run_episode(gym.make("PDDL-v0", domain=DOMAIN, problem=HELD), Untouchable())
    assert (episode.won, episode.steps, episode.truncated, episode.gave_up) == (
        True,
        0,
        False,
        False,
    )
    assert episode.actions == () and episode.details == {} and len(episode.observations) == 1
