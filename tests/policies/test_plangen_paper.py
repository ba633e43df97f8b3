"""PlanGen as PDDLego+'s authors ran it (``PlanGenStepsPolicy``, ``pddlego.py --policy
plangen --paper``): one command per call, 20 steps x 5 tries, each try after the first
restarting the game and replaying the steps that ran through, the authors' answers to a
refused command, and simulation errors counted as their results script counts them."""

import json

import gymnasium as gym
import pytest

import planloop  # noqa: F401
from planloop.llm import LLMError, ScriptedModel
from planloop.policies import PlanGenStepsPolicy, run_episode
from planloop.policies.plangen import read_json_commands
from planloop.protocols.pddlego_plus import loop_counts, plangen_feedback

from conftest import load_experiment


def action(command: str) -> str:
    return json.dumps({"action": command})


def run(tmp_path, replies, *flags):
    """The study's records and paper tables for ``replies`` (a list, or a function of the
    messages), and the model."""
    study = load_experiment("pddlego")
    model = ScriptedModel(replies)
    argv = ["--policy", "plangen", "--llm", "x", "--out", str(tmp_path), *flags]
    assert study.main(argv, model=model, show=False) == 0
    lines = (tmp_path / "episodes.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    return records, study.paper_tables(records), model


def errors_line(tables: dict) -> list[str]:
    line = next(line for line in tables["errors"].splitlines() if line.startswith("| PlanGen"))
    return [cell.strip() for cell in line.strip("|").split("|")]


COIN_3 = ["-o", "num_locations=3", "--instances", "0"]


def test_an_action_the_game_always_refuses_ends_after_five_tries_each_restarting(tmp_path):
    (record,), tables, model = run(tmp_path, lambda messages: action("move up"), "--paper", *COIN_3)
    assert record["usage"]["calls"] == 5 and record["actions"] == ["move up"] * 5
    assert record["restarts"] == 4 and record["restarted_after"] == [1, 2, 3, 4]
    assert record["details"]["tries"] == [[[1, 0], [2, 0], [3, 0], [4, 0], [5, 0]]]
    told = "You took the action 'move up' and it failed. You cannot move in that direction."
    assert record["stop"].startswith(f"simulation error not fixed after 4 retries: {told}")
    assert all(len(messages) == 1 and messages[0]["role"] == "user" for messages in model.prompts)
    retry = model.prompts[1][0]["content"]
    assert "What you see now:\n> move up\n" in retry and told in retry
    # RPF l.71-80: one simulation error, in the last step of the episode: not fixed
    assert errors_line(tables) == ["PlanGen", "CoinCollector", "1", "-", "1 / 0 (0%)", "0"]


def test_a_refused_step_is_tried_again_after_a_restart_and_replay():
    # house 0 of 5 locations: move west, open door to north, move north, take coin
    env = gym.make("CoinCollector-v0", num_locations=5)
    replies = ["move west", "move north", "open door to north", "fly away", "move north"]
    model = ScriptedModel([action(command) for command in replies + ["take coin"]])
    episode = run_episode(env, PlanGenStepsPolicy(model), options={"instance": 0})
    assert episode.won and episode.usage.calls == 6
    assert list(episode.actions) == [
        "move west",
        "move north",  # refused: the game restarts and replays step 1
        "move west",
        "open door to north",
        "fly away",  # refused: restarted, steps 1 and 2 replayed
        "move west",
        "open door to north",
        "move north",
        "take coin",
    ]
    assert episode.restarts == 2 and episode.restarted_after == (2, 5)
    assert episode.details["tries"] == [[[1, 0]], [[1, 0], [2, 0]], [[1, 0], [2, 0]], [[1, 0]]]
    # the third call retries step 2 after the restart: the step that ran through is in
    # the memory, the refused one only in what it sees now
    memory, now = model.prompts[2][0]["content"].split("What you see now:")
    assert "> move west" in memory and "> move north" not in memory
    assert now.lstrip().startswith("> move north\nYou can't move there")
    assert "refused" not in model.prompts[3][0]["content"]  # a new step: no refusal
    assert "The game refused 'fly away'" in model.prompts[4][0]["content"]
    counts = loop_counts(episode.details["tries"], episode.won, policy="plangen")
    assert (counts["simulation_errors"], counts["simulation_fixed"]) == (2, 2)


def test_a_reply_that_is_not_json_restarts_the_trial_then_is_a_model_error(tmp_path):
    (record,), tables, _ = run(tmp_path, lambda messages: "move north", "--paper", *COIN_3)
    assert record["error"].startswith("unreadable_reply: the reply is not a JSON object")
    assert record["trial_attempts_used"] == 2
    assert errors_line(tables)[5] == "1"


def test_a_refused_go_to_on_alfworld_ends_the_try_with_its_own_answer(tmp_path):
    (record,), _, model = run(
        tmp_path,
        lambda messages: action("go to nowhere 1"),
        "--paper",
        "--env",
        "ALFWorld-v0",
        "--instances",
        "0",
    )
    assert record["usage"]["calls"] == 5 and record["restarts"] == 4
    assert "You may be at that receptacle already" in model.prompts[1][0]["content"]
    assert "Your task is to: " in model.prompts[0][0]["content"]


def test_without_paper_planloops_plangen_keeps_its_record(tmp_path):
    (record,), _, model = run(tmp_path, lambda messages: action("move north"), *COIN_3)
    assert record["prompt_version"] == "plangen/v1" and "tries" not in record["details"]
    assert {"rollback", "simulation_retries", "simulation_errors"}.isdisjoint(record)
    assert record["restarts"] == 0 and model.prompts[0][0]["role"] == "system"


def test_the_step_limit_ends_the_episode():
    env = gym.make("CoinCollector-v0", num_locations=5)  # house 0: the east door is closed
    model = ScriptedModel([action(f"{verb} door to east") for verb in ("open", "close", "open")])
    policy = PlanGenStepsPolicy(model, max_steps=3)
    episode = run_episode(env, policy, options={"instance": 0})
    assert episode.usage.calls == 3 and episode.gave_up and episode.restarts == 0
    assert episode.details["tries"] == [[[1, 0]]] * 3
    assert episode.details["stop"] == "step limit: 3 steps"


@pytest.mark.parametrize(
    "reply, commands",
    [
        ('{"action": "move north"}', ["move north"]),
        (
            '<think>{"action": "x"}</think>\n```json\n{"action": " move south "}\n```',
            ["move south"],
        ),
        ('{"actions": ["move north"]}', ["move north"]),  # the authors' prompt's form
        (
            '```json\n{"actions": ["open door to east", " move east"]}\n```',
            ["open door to east", "move east"],
        ),
        ('{"actions": []}', []),
    ],
)
def test_a_json_reply(reply, commands):
    assert read_json_commands(reply) == commands


@pytest.mark.parametrize(
    "reply",
    [
        "move north",
        'I pick {"action": "move north"}',
        '{"actions": "move north"}',
        '{"actions": ["move north", 3]}',
        '{"act": "move north"}',
        '["move north"]',
    ],
)
def test_anything_else_is_unreadable(reply):
    with pytest.raises(LLMError, match="unreadable_reply"):
        read_json_commands(reply)


def actions(*commands: str) -> str:
    return json.dumps({"actions": list(commands)})


def test_a_list_of_commands_is_played_in_order_as_one_step():
    # house 0 of 5 locations: move west, open door to north, move north, take coin
    env = gym.make("CoinCollector-v0", num_locations=5)
    replies = [
        actions("move west", "move north"),  # the second refused: the whole step again
        actions("move west", "open door to north"),
        actions("move north", "take coin"),
    ]
    model = ScriptedModel(replies)
    episode = run_episode(env, PlanGenStepsPolicy(model, replies="json"), options={"instance": 0})
    assert episode.won and episode.usage.calls == 3
    assert list(episode.actions) == [
        "move west",
        "move north",  # refused: restarted, nothing to replay
        "move west",
        "open door to north",
        "move north",
        "take coin",
    ]
    assert episode.restarted_after == (2,)
    assert episode.details["tries"] == [[[1, 0], [2, 0]], [[1, 0]]]
    memory = model.prompts[2][0]["content"].split("What you see now:")[0]
    assert "> move west" in memory and "> open door to north" in memory


def test_a_list_naming_no_command_ends_the_episode():
    env = gym.make("CoinCollector-v0", num_locations=5)
    model = ScriptedModel([actions()])
    episode = run_episode(env, PlanGenStepsPolicy(model, replies="json"), options={"instance": 0})
    assert episode.gave_up and episode.usage.calls == 1 and episode.error is None
    assert episode.details["stop"] == "the reply named no command"


def test_a_malformed_reply_is_a_model_error_of_the_paper_run(tmp_path):
    (record,), _, _ = run(
        tmp_path, lambda messages: '{"actions": "move north"}', "--paper", *COIN_3
    )
    assert record["error"].startswith("unreadable_reply: the reply is not a JSON object")


def test_plangen_answers_and_counts():
    assert plangen_feedback("alfworld", "open drawer 2", "Nothing happens.").endswith(
        "Go to the receptacle before you open it. If you are at it and it still does not "
        "open, it cannot be opened: what is inside shows when you go to it."
    )
    assert "no such receptacle" in plangen_feedback("alfworld", "go to shelf 9", "Nothing happens.")
    won_after_a_retry = [[[1, 0]], [[1, 0], [2, 0]]]
    assert loop_counts(won_after_a_retry, won=True)["simulation_fixed"] == 1
    assert loop_counts(won_after_a_retry, won=True, policy="plangen")["simulation_fixed"] == 0
