"""info["goal_distance"] (h_FF, h_add) on the fully observable envs, the ProgressFeedback
wrapper's sentence, and the studies' --progress-feedback switch."""

import json
import math

import gymnasium as gym
import numpy as np
import pytest

import planloop  # noqa: F401
from planloop.llm import ScriptedModel, ToolCall
from planloop.pddl import RelaxedTask, parse_command, solve
from planloop.policies import AgenticPolicy, run_episode
from planloop.policies.doubles import following_model, goal_of
from planloop.wrappers import ProgressFeedback

from conftest import load_experiment

ENV_ID, INSTANCE = "Blocksworld-v0", 0
FUEL_DOMAIN = """(define (domain fuel) (:predicates (fuel) (there))
  (:action go :parameters () :precondition (fuel) :effect (there))
  (:action waste :parameters () :precondition (fuel) :effect (not (fuel))))"""
FUEL_PROBLEM = "(define (problem trip) (:domain fuel) (:init (fuel)) (:goal (there)))"
NOWHERE = "(define (problem nowhere) (:domain fuel) (:init) (:goal (there)))"


@pytest.fixture(scope="module")
def plan():
    _, info = gym.make(ENV_ID).reset(options={"instance": INSTANCE})
    result = solve(info["domain_pddl"], info["problem_pddl"], planner="bfs", timeout=30)
    return [step.lower() for step in result.plan]


def fuel_env(**kwargs):
    return gym.make("PDDL-v0", domain=FUEL_DOMAIN, problem=[FUEL_PROBLEM, NOWHERE], **kwargs)


@pytest.mark.parametrize("heuristic", ["ff", "add"])
def test_goal_distance_is_the_relaxed_tasks_heuristic(heuristic, plan):
    env = gym.make(ENV_ID, goal_distance=heuristic)
    _, info = env.reset(options={"instance": INSTANCE})
    base = env.unwrapped
    relaxed = RelaxedTask(base.task)
    evaluate = relaxed.h_ff if heuristic == "ff" else relaxed.h_add
    for step in [*plan[:2], "(stack z z)", *plan[2:]]:
        assert type(info["goal_distance"]) is float
        assert info["goal_distance"] == evaluate(base.state) == base.distance(heuristic)
        *_, info = env.step(step)
    assert info["won"] and info["goal_distance"] == 0


@pytest.mark.parametrize("env_id", ["Mystery-BW-v0", "MysteryRandom-BW-v0", "Baking-v0"])
def test_goal_distance_is_on_every_step_when_asked_and_never_otherwise(env_id):
    for asked in (True, False):
        env = gym.make(env_id, **({"goal_distance": "ff"} if asked else {}))
        infos = [env.reset(seed=0)[1]]
        infos += [env.step(infos[-1]["admissible_actions"][0])[-1], env.step("(nonsense)")[-1]]
        assert all(("goal_distance" in info) == asked for info in infos)


def test_a_bad_heuristic_is_refused():
    with pytest.raises(ValueError, match="one of ff, add, not 'hmax'"):
        gym.make(ENV_ID, goal_distance="hmax")
    with pytest.raises(ValueError, match="one of ff, add"):
        ProgressFeedback(gym.make(ENV_ID), heuristic="hmax")


def test_sentences_say_closer_no_closer_and_further(plan):
    env = ProgressFeedback(gym.make(ENV_ID))
    obs, info = env.reset(options={"instance": INSTANCE})
    assert obs.endswith("\nProgress: the distance to the goal is 6.")
    assert info["progress"] == obs.rsplit("\n", 1)[1]
    base = env.unwrapped
    said = [env.step(step)[-1]["progress"] for step in ["(stack z z)", plan[0]]]
    before = base.state
    *_, info = env.step(plan[1])
    said.append(info["progress"])
    undo = next(
        a
        for a in info["admissible_actions"]
        if base.task.action(*parse_command(a)).apply(base.state) == before
    )
    said += [env.step(step)[-1]["progress"] for step in (undo, plan[1])]
    assert said == [
        "Progress: the goal is no closer (distance 6 -> 6).",  # an invalid action
        "Progress: the goal is no closer (distance 6 -> 6).",
        "Progress: the goal is closer (distance 6 -> 4).",
        "Progress: the goal is further (distance 4 -> 6).",  # the undoing move
        "Progress: the goal is closer (distance 6 -> 4).",
    ]
    for step in plan[2:]:
        obs, _, terminated, _, info = env.step(step)
        assert env.observation_space.contains(obs) and obs.endswith(info["progress"])
    assert terminated and info["progress"].endswith("is closer (distance 1 -> 0).")


def test_an_unreachable_goal_is_infinitely_far():
    env = ProgressFeedback(fuel_env(goal_distance="ff"))
    obs, info = env.reset(options={"instance": 0})
    assert info["goal_distance"] == 1 and obs.endswith("the distance to the goal is 1.")
    obs, *_, info = env.step("(waste)")
    assert info["goal_distance"] == math.inf
    assert info["progress"] == "Progress: the goal is further (distance 1 -> infinite)."
    _, info = env.reset(options={"instance": 1})
    assert info["goal_distance"] == math.inf and info["progress"].endswith("is infinite.")


def test_vector_envs_merge_goal_distance_and_progress():
    envs = gym.make_vec(
        "planloop:PDDL-v0",
        num_envs=2,
        vectorization_mode="sync",
        wrappers=[ProgressFeedback],
        domain=FUEL_DOMAIN,
        problem=[FUEL_PROBLEM],
        goal_distance="add",
    )
    try:
        _, infos = envs.reset(seed=0)
        assert infos["goal_distance"].tolist() == [1.0, 1.0]
        _, _, terminated, _, infos = envs.step(np.array(["(waste)", "(go)"]))
        assert infos["goal_distance"].dtype == np.float64
        assert infos["goal_distance"].tolist() == [math.inf, 0.0]
        assert infos["_goal_distance"].all() and terminated.tolist() == [False, True]
        assert infos["progress"][0].endswith("(distance 1 -> infinite).")
    finally:
        envs.close()


def test_text_games_are_refused():
    with pytest.raises(TypeError, match="fully observable .* not CoinCollectorEnv"):
        ProgressFeedback(gym.make("CoinCollector-v0", num_locations=6))


def test_the_agentic_policy_hears_the_progress_without_the_cause(plan):
    model = ScriptedModel(
        [ToolCall("1", "execute_action", json.dumps({"action": plan[0]})), "Done."]
    )
    env = ProgressFeedback(gym.make(ENV_ID))
    run_episode(env, AgenticPolicy(model, feedback="outcome"), options={"instance": INSTANCE})
    answer = json.loads(next(m["content"] for m in model.prompts[-1] if m["role"] == "tool"))
    assert answer["executed"] and "observation" not in answer
    assert answer["progress"] == "Progress: the goal is no closer (distance 6 -> 6)."


def test_horizon_sweep_shows_the_progress_and_keys_its_records(tmp_path, capsys):
    env, plans = gym.make(ENV_ID), {}
    for instance in (3, 4):
        _, info = env.reset(options={"instance": instance})
        result = solve(info["domain_pddl"], info["problem_pddl"], planner="bfs", timeout=30)
        plans[info["task"]] = [step.lower() for step in result.plan]
    model = following_model(lambda messages: plans[goal_of(messages)])
    sweep = load_experiment("horizon_sweep")
    args = [
        "--env",
        ENV_ID,
        "--instances",
        "3:5",
        "--horizons",
        "1",
        "--trials",
        "1",
        "--out",
        str(tmp_path),
    ]
    assert sweep.main([*args, "--progress-feedback", "ff"], model=model) == 0
    asked = [
        m["content"]
        for prompt in model.prompts
        for m in prompt
        if m["content"].startswith("Current situation:")
    ]
    assert any("\nProgress: the distance to the goal is " in q for q in asked)
    assert any("\nProgress: the goal is closer (distance " in q for q in asked)
    records = [json.loads(line) for line in (tmp_path / "episodes.jsonl").read_text().splitlines()]
    assert len(records) == 2 and all(r["won"] for r in records)
    assert all(r["provenance"]["settings"]["progress_feedback"] == "ff" for r in records)

    assert sweep.main(args, model=model) == 0  # off: a study of its own, no progress told
    records = [json.loads(line) for line in (tmp_path / "episodes.jsonl").read_text().splitlines()]
    assert len(records) == 4 and len({r["key"] for r in records}) == 4
    assert "progress_feedback" not in records[-1]["provenance"]["settings"]
    assert "Progress:" not in json.dumps(model.prompts[-1])
    capsys.readouterr()


def test_mystery_study_records_the_switch(tmp_path, capsys):
    study = load_experiment("mystery")
    assert (
        study.main(
            [
                "--conditions",
                "planner",
                "--instances",
                "0:2",
                "--progress-feedback",
                "add",
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    records = [json.loads(line) for line in (tmp_path / "episodes.jsonl").read_text().splitlines()]
    assert all(r["won"] and r["attempts"] == 1 for r in records)
    assert all(r["provenance"]["settings"]["progress_feedback"] == "add" for r in records)
    capsys.readouterr()
