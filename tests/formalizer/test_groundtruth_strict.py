"""The ground-truth formalizer writes clean PDDL: every round's files of a won episode
read with no warning in the strict reading, on every ALFWorld task type (the fixture
games and generated ones) and every CoinCollector house size, doors on and off; and the
ALFWorld domain written for planners means what ALFWorld's domain means."""

import gymnasium as gym
import pytest

import planloop  # noqa: F401
from planloop.envs.alfworld.game import TASK_TYPES, load_game, planners_domain
from planloop.formalizer import ground_truth_writer
from planloop.pddl import parse, solve
from planloop.policies import Episode, PDDLegoPolicy, run_episode
from planloop.wrappers import AutoTakeCoin

from conftest import DATA

GAMES = sorted((DATA / "alfworld" / "games").glob("*/game.tw-pddl"))


def strict_rounds(env, family: str, instance: int = 0, coin_taken: bool = False) -> Episode:
    """Play an episode with the ground truth (when ``coin_taken``, the harness takes the
    coin once a step shows it); every round's files read strictly with no warning. The
    episode."""
    writer = ground_truth_writer(env, family, planner="auto", coin_taken=coin_taken)
    if coin_taken:
        env = AutoTakeCoin(env, when="shown")
    episode = run_episode(env, PDDLegoPolicy(writer), options={"instance": instance})
    rounds = episode.details["rounds"]
    assert rounds
    for number, round_ in enumerate(rounds):
        domain, problem = parse(round_["df"], round_["pf"], strict=True)
        assert domain.warnings + problem.warnings == (), number
        assert round_["warnings"] == [], number
    return episode


@pytest.mark.parametrize("doors", [True, False])
@pytest.mark.parametrize("locations", range(1, 12))
def test_every_coincollector_house_size(locations, doors):
    env = gym.make("CoinCollector-v0", num_locations=locations, include_doors=doors)
    assert strict_rounds(env, "coin", locations).won
    # a coin in view at the start is taken only when a later step shows it: never, alone
    assert strict_rounds(env, "coin", locations, coin_taken=True).won == (locations > 1)


@pytest.mark.parametrize("task_type", TASK_TYPES)
def test_generated_alfworld_games_of_every_task_type(task_type):
    env = gym.make("ALFWorld-v0", task_types=[task_type], num_generated=1)
    assert strict_rounds(env, "alfworld").won


@pytest.mark.slow
def test_every_alfworld_fixture_game():
    assert {game.parent.name.split("-")[0] for game in GAMES} == set(TASK_TYPES)
    for game in GAMES:
        assert strict_rounds(gym.make("ALFWorld-v0", game_file=game), "alfworld").won


def test_the_domain_for_planners_declares_what_alfworld_leaves_to_planners():
    """Its constants (``sinkbasintype``, ...) typed as the problem types them, ``checked``
    open to the locations and the agent that ``look`` and ``inventory`` mark, the comma
    type a location no object is, and the rest as the game reads it."""
    task = load_game(GAMES[0]).task
    domain = planners_domain(task)
    assert domain.constants == {
        "butterknifetype": "otype",
        "fridgetype": "rtype",
        "knifetype": "otype",
        "microwavetype": "rtype",
        "sinkbasintype": "rtype",
    }
    assert domain.predicates["checked"].params[0].types == ("object",)
    assert domain.types["location-comma"] == "location"
    assert not any(t == "location-comma" for t in task.objects.values())
    unchanged = {n: p for n, p in task.domain.predicates.items() if n != "checked"}
    assert {n: domain.predicates[n] for n in unchanged} == unchanged
    assert domain.actions == task.domain.actions


@pytest.mark.parametrize("kind", ["pick_cool", "pick_clean"])  # fridge, sink basin
def test_the_world_texts_read_strictly_and_plan_as_the_game_does(kind):
    game_file = next(g for g in GAMES if g.parent.name.startswith(kind))
    env = gym.make("ALFWorld-v0", game_file=game_file)
    env.reset()
    domain_text, problem_text = env.unwrapped.world_pddl()
    domain, problem = parse(domain_text, problem_text, strict=True)
    assert domain.warnings + problem.warnings == ()
    assert not set(domain.constants) & set(problem.objects)
    task = env.unwrapped.game.task
    written = solve(domain_text, problem_text, planner="bfs", timeout=60)
    game = solve(task.domain, task.problem, planner="bfs", timeout=60)
    assert written.solved and len(written.plan) == len(game.plan)
