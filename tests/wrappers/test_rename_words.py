"""RenameWords: the hidden world's names made up in everything the agent reads, its
commands read back, a true name not understood, and the ground truth still winning."""

import gymnasium as gym
import pytest

from planloop.policies import OraclePolicy, run_episode
from planloop.wrappers import RenameWords
from planloop.wrappers.rename_words import pseudo_word, world_words


@pytest.fixture
def coin():
    env = RenameWords(gym.make("CoinCollector-v0"))
    yield env
    env.close()


def test_no_true_name_reaches_the_agent(coin):
    obs, info = coin.reset(seed=1, options={"instance": 1})
    shown = " ".join([obs, info["task"], *info["admissible_actions"]]).lower()
    for word in coin.forward:
        assert f" {word} " not in f" {shown} ", word
    assert "kitchen" in coin.forward and coin.forward["kitchen"] in obs
    assert all(
        a.split()[0] in {"move", "open", "close", "take", "look", "inventory"}
        for a in info["admissible_actions"]
    )  # the verbs are kept


def test_commands_are_read_back_and_a_true_name_is_not_understood(coin):
    _, info = coin.reset(seed=1, options={"instance": 1})
    take = next(a for a in info["admissible_actions"] if a.startswith("take"))
    assert coin.true_command(take) == "take coin"
    assert coin.true_command("take coin") == "take coin?"  # a name played from memory
    _, _, _, _, refused = coin.step("take coin")
    assert refused["action_error"]["kind"] != ""
    _, _, terminated, _, won = coin.step(take)
    assert terminated and won["won"]


def test_the_oracle_wins_through_the_names():
    for env_id, kwargs in (("ALFWorld-v0", {}), ("Contingent-Logistics-v0", {"predicates": True})):
        env = RenameWords(gym.make(env_id), **kwargs)
        episode = run_episode(env, OraclePolicy(env, env.rename), seed=0, options={"instance": 0})
        assert episode.won, (env_id, episode.details)
        env.close()


def test_made_up_words_are_seeded_and_distinct():
    assert pseudo_word("kitchen", 0) == pseudo_word("kitchen", 0) != pseudo_word("kitchen", 1)
    env = RenameWords(gym.make("CoinCollector-v0"), seed=3)
    env.reset(seed=0)
    assert len(set(env.forward.values())) == len(env.forward)
    assert not set(env.forward.values()) & set(env.forward)
    env.close()


DOMAIN = """(define (domain d) (:requirements :typing) (:types room door)
  (:predicates (closed ?d - door) (at ?r - room))
  (:action go :parameters (?r - room ?d - door) :precondition (closed ?d) :effect (at ?r)))"""
PROBLEM = """(define (problem p) (:domain d)
  (:objects p1-2 north - room patio_door_kitchen - door)
  (:init (closed patio_door_kitchen)) (:goal (at north)))"""


def test_world_words_are_the_names_parts_less_the_language():
    assert world_words(DOMAIN, PROBLEM) == {"patio", "door", "kitchen", "room"}
    assert world_words(DOMAIN, PROBLEM, keep=["door"]) == {"patio", "kitchen", "room"}
    assert "closed" in world_words(DOMAIN, PROBLEM, predicates=True)


def test_a_game_without_a_hidden_world_is_refused():
    with pytest.raises(TypeError, match="world_pddl"):
        RenameWords(gym.make("Blocksworld-v0"))
