"""The ground-truth formalizer drives PDDLego+ end to end (environment, planner, loops,
command mapping) and wins every game: CoinCollector houses of 3 to 11 locations with
doors, every recorded TextWorld Express game, and ALFWorld games of all six task types."""

from pathlib import Path

import gymnasium as gym
import pytest

import planloop  # noqa: F401
from planloop.formalizer import ground_truth_writer
from planloop.policies import PDDLegoPolicy, run_episode

DATA = Path(__file__).parents[1] / "data"
PLANNER = "auto"
TASK_TYPES = (
    "pick_and_place_simple",
    "look_at_obj_in_light",
    "pick_clean_then_place_in_recep",
    "pick_heat_then_place_in_recep",
    "pick_cool_then_place_in_recep",
    "pick_two_obj_and_place",
)


def play(env, family: str, instance: int = 0):
    writer = ground_truth_writer(env, family, planner=PLANNER)
    episode = run_episode(
        env, PDDLegoPolicy(writer, planner=PLANNER), options={"instance": instance}
    )
    assert episode.won, (episode.details["stop"], episode.actions)
    assert episode.details["solver_errors"] == episode.details["simulation_errors"] == 0
    assert episode.model == "groundtruth" and episode.usage.calls == 0
    return episode


@pytest.mark.parametrize("locations", [3, 5, 7, 9, 11])
def test_generated_houses_with_doors(locations):
    env = gym.make("CoinCollector-v0", num_locations=locations, include_doors=True)
    for seed in range(4):
        episode = play(env, "coin", seed)
        assert episode.actions[-1] == "take coin"


@pytest.mark.slow
def test_every_recorded_textworld_express_game():
    games = sorted((DATA / "twx_coin").glob("*.json"))
    assert len(games) == 49
    for game in games:
        play(gym.make("CoinCollector-v0", layout=game), "coin")


def test_the_plan_grows_round_by_round():
    """Rounds after the first answer new observations: the files grow with the house."""
    env = gym.make("CoinCollector-v0", num_locations=11)
    episode = play(env, "coin", 3)
    rounds = episode.details["rounds"]
    assert [r["trigger"] for r in rounds] == ["start"] + ["growth"] * (len(rounds) - 1)
    sizes = [len(r["pf"].splitlines()) for r in rounds]
    assert sizes[-1] > sizes[0]
    assert sum(len(r["steps"]) for r in rounds) == episode.steps


@pytest.mark.slow
def test_every_alfworld_fixture_game():
    games = sorted((DATA / "alfworld" / "games").glob("*/game.tw-pddl"))
    assert {game.parent.name.split("-")[0] for game in games} == set(TASK_TYPES)
    for game in games:
        play(gym.make("ALFWorld-v0", game_file=game), "alfworld")


@pytest.mark.slow
@pytest.mark.parametrize("task_type", TASK_TYPES)
def test_generated_alfworld_games(task_type):
    env = gym.make("ALFWorld-v0", task_types=[task_type], num_generated=2)
    for instance in range(2):
        assert play(env, "alfworld", instance).actions
