"""PlanGenPolicy: the model picks each command from the task, the history and the valid
commands (PDDLego+'s LLM-as-planner baseline)."""

import json

import gymnasium as gym
import pytest

import planloop  # noqa: F401
from planloop.llm import LLMError, ScriptedModel
from planloop.policies import PlanGenPolicy, run_episode
from planloop.policies.plangen import read_command

VALID = ["move north", "open door to east", "take coin"]


@pytest.mark.parametrize(
    "reply, command",
    [
        ('{"action": "move north"}', "move north"),
        ('Let me think. {"action": "Open  Door to EAST"} is best.', "open door to east"),
        ("```\ntake coin\n```", "take coin"),
        ("  'move north'\nbecause the corridor is there", "move north"),
        ('{"plan": 1} {"action": "fly away"}', "fly away"),  # sent as written: the game answers
        ("", ""),
    ],
)
def test_the_command_in_a_reply(reply, command):
    assert read_command(reply, VALID) == command


def test_a_model_following_the_gold_path_wins_and_sees_the_history():
    env = gym.make("CoinCollector-v0", num_locations=5)
    env.reset(seed=3)
    gold = env.unwrapped.gold_path()
    model = ScriptedModel([json.dumps({"action": a}) for a in gold])
    episode = run_episode(env, PlanGenPolicy(model), seed=3)
    assert episode.won and list(episode.actions) == gold
    assert episode.usage.calls == len(gold) and episode.prompt_version == "plangen/v1"
    last = model.prompts[-1][-1]["content"]
    assert f"> {gold[0]}\n" in last and "Commands the game accepts now: " in last
    assert "Your task: " in last


def test_a_failing_model_is_recorded():
    env = gym.make("CoinCollector-v0", num_locations=3)
    episode = run_episode(env, PlanGenPolicy(ScriptedModel([LLMError("server", "503")])), seed=0)
    assert not episode.won and episode.error == "server: 503" and episode.steps == 0
