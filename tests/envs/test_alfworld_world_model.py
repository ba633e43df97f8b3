"""ALFWorld's world_model() hands the ground-truth formalizer the hidden world without
writing it: it must be exactly what reading world_pddl()'s texts gives."""

import random

import gymnasium as gym
import pytest

import planloop  # noqa: F401  (registers the environments)
from planloop.pddl import parse

from conftest import DATA

GAMES = sorted((DATA / "alfworld" / "games").glob("*/game.tw-pddl"))


@pytest.mark.parametrize("game", GAMES[::3], ids=lambda g: g.parent.name)
def test_the_world_model_is_what_reading_the_world_text_gives(game):
    env = gym.make("ALFWorld-v0", game_file=game)
    _, info = env.reset()
    rng = random.Random(game.parent.name)
    for _ in range(25):
        domain_text, problem = env.unwrapped.world_model()
        written_domain, written_problem = env.unwrapped.world_pddl()
        assert domain_text == written_domain
        assert problem == parse(written_domain, written_problem)[1]
        _, _, done, _, info = env.step(rng.choice(info["admissible_actions"]))
        if done:
            break
