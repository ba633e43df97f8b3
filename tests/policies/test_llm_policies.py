"""The language-model policies end to end with scripted models.

A correct model wins with every policy. A model with a known mistake (it leaves out the
first action of an optimal plan, so no plan it writes can reach the goal) recovers only
where the policy gives feedback: the closed loop after explaining the failure, direct
planning by resampling, the agentic policy by resetting. Budgets end episodes and are
recorded.
"""

import json

import gymnasium as gym
import pytest

import planloop  # noqa: F401
from planloop.llm import ChatResponse, ScriptedModel, ToolCall
from planloop.pddl import load, solve, validate
from planloop.policies import (
    AgenticPolicy,
    ClosedLoopPolicy,
    DirectPlanPolicy,
    OpenLoopPolicy,
    run_episode,
)
from planloop.policies.doubles import following_model, has_lessons

from conftest import BrokenModel

ENV_ID, INSTANCE = "Mystery-BW-v0", 3


def optimal_plan(env_id=ENV_ID, instance=INSTANCE):
    _, info = gym.make(env_id).reset(options={"instance": instance})
    result = solve(info["domain_pddl"], info["problem_pddl"], planner="bfs", timeout=30)
    assert result.solved
    return [step.lower() for step in result.plan], info


@pytest.fixture(scope="module")
def task():
    plan, info = optimal_plan()
    grounded = load(info["domain_pddl"], info["problem_pddl"])
    second = grounded.action(*_split(plan[1]))
    assert not second.applicable(grounded.init), "the mistake must fail at once"
    return plan


def undo_cycle():
    """An applicable action and the one that undoes it, from the initial state."""
    _, info = gym.make(ENV_ID).reset(options={"instance": INSTANCE})
    grounded = load(info["domain_pddl"], info["problem_pddl"])
    for first in grounded.applicable(grounded.init):
        after = first.apply(grounded.init)
        for second in grounded.applicable(after):
            if second.apply(after) == grounded.init and _name(second.text) != _name(first.text):
                return [first.text, second.text]
    raise AssertionError("no undoing pair")


def _split(command):
    name, *args = command.strip("()").split()
    return name, tuple(args)


def _name(command):
    return _split(command)[0]


def loop_model(plan, learns_after_explaining=True, mistaken=True):
    """Follows ``plan``; a mistaken model leaves out its first action until an
    explanation of a failure is in context (never, if it does not learn)."""

    def plan_for(messages):
        learned = learns_after_explaining and has_lessons(messages)
        return plan[1:] if mistaken and not learned else plan

    return following_model(plan_for)


@pytest.mark.parametrize("horizon", [1, 3, None])
def test_closed_loop_with_a_correct_model_wins(task, horizon):
    model = loop_model(task, mistaken=False)
    episode = run_episode(
        gym.make(ENV_ID), ClosedLoopPolicy(model, horizon=horizon), options={"instance": INSTANCE}
    )
    assert episode.won and episode.restarts == 0 and episode.steps == len(task)
    assert episode.policy == f"closed-loop-h{horizon or 'inf'}"
    assert episode.prompt_version == "loop-v1" and episode.usage.calls == model.calls
    proposals = -(-len(task) // horizon) if horizon else 1
    assert episode.details["proposals"] == proposals


def test_closed_loop_recovers_after_explaining_the_failure(task):
    model = loop_model(task)
    episode = run_episode(
        gym.make(ENV_ID), ClosedLoopPolicy(model, horizon=1), options={"instance": INSTANCE}
    )
    assert episode.won and episode.restarts == 1
    assert episode.errors[0]["kind"] == "inapplicable"
    assert episode.actions[1:] == tuple(task)
    [lesson] = episode.details["explanations"]
    assert lesson.startswith(task[1]) and "earlier action" in lesson
    assert any("earlier action" in (m["content"] or "") for m in model.prompts[-1])


def test_open_loop_has_no_feedback_so_the_same_mistake_loses(task):
    model = loop_model(task)
    episode = run_episode(gym.make(ENV_ID), OpenLoopPolicy(model), options={"instance": INSTANCE})
    assert not episode.won and episode.restarts == 0 and episode.gave_up
    assert episode.steps == len(task) - 1 and episode.details["stop"] == "plan_executed"
    assert episode.policy == "open-loop"


def test_open_loop_with_a_correct_model_wins_with_one_call_per_grounding(task):
    model = loop_model(task, mistaken=False)
    episode = run_episode(gym.make(ENV_ID), OpenLoopPolicy(model), options={"instance": INSTANCE})
    assert episode.won and episode.usage.calls == 1 + len(task)


def test_closed_loop_budgets_end_the_episode(task):
    stubborn = loop_model(task, learns_after_explaining=False)
    episode = run_episode(
        gym.make(ENV_ID),
        ClosedLoopPolicy(stubborn, horizon=2, max_restarts=2),
        options={"instance": INSTANCE},
    )
    assert not episode.won and episode.restarts == 2 and episode.gave_up
    assert episode.details["stop"] == "restart_limit" and len(episode.details["explanations"]) == 2

    cycle = undo_cycle()  # two actions that lead back to the start: never the goal
    names = "\n".join(_name(step) for step in cycle)
    wanders = ScriptedModel(
        lambda m: (
            names
            if "What are the next" in m[-1]["content"]
            else cycle[0]
            if f"is {_name(cycle[0])}," in m[-1]["content"]
            else cycle[1]
        )
    )
    episode = run_episode(
        gym.make(ENV_ID),
        ClosedLoopPolicy(wanders, horizon=2, max_actions=12),
        options={"instance": INSTANCE},
    )
    assert episode.steps == 12 and episode.details["stop"] == "action_limit" and episode.gave_up
    assert all(error is None for error in episode.errors)


def test_closed_loop_reads_numbered_and_parenthesised_names_and_skips_prose(task):
    policy = ClosedLoopPolicy(loop_model(task), horizon=5)
    env = gym.make(ENV_ID)
    obs, info = env.reset(options={"instance": INSTANCE})
    policy.reset(obs, info)
    assert policy._read_steps(
        "Sure, here you go:\n1. Attack\n- (feast a b)\n* overcome\nThen we are done.\nfly"
    ) == [("attack", "1. Attack"), ("feast", "- (feast a b)"), ("overcome", "* overcome")]


def test_direct_planning_recovers_by_resampling_within_its_budget(task):
    wrong, right = "\n".join(task[1:]), "\n".join(task)
    episode = run_episode(
        gym.make(ENV_ID),
        DirectPlanPolicy(ScriptedModel([wrong, right])),
        options={"instance": INSTANCE},
    )
    assert episode.won and [a["verdict"] for a in episode.details["attempts"]] == [
        "precondition",
        "valid",
    ]
    episode = run_episode(
        gym.make(ENV_ID),
        DirectPlanPolicy(ScriptedModel([wrong]), max_attempts=1),
        options={"instance": INSTANCE},
    )
    assert not episode.won and episode.details["stop"] == "budget"


def call(name, **arguments):
    call.count = getattr(call, "count", 0) + 1
    return ToolCall(f"call-{call.count}", name, json.dumps(arguments))


def test_agentic_policy_recovers_by_reset(task):
    env = gym.make(ENV_ID)
    _, info = env.reset(options={"instance": INSTANCE})
    grounded = load(info["domain_pddl"], info["problem_pddl"])
    after_first = grounded.action(*_split(task[0])).apply(grounded.init)
    wrong = next(a.text for a in grounded.applicable(after_first) if a.text != task[1])
    replies = [
        call("start_session"),
        call("get_applicable_actions"),
        call("execute_action", action=task[1]),
        call("execute_action", action=task[0]),
        call("execute_action", action=wrong),
        ChatResponse("", (call("get_history"), call("validate_plan", plan="\n".join(task)))),
        call("reset"),
    ]
    replies += [call("execute_action", action=step) for step in task]
    model = ScriptedModel(replies)
    episode = run_episode(env, AgenticPolicy(model), options={"instance": INSTANCE})
    assert episode.won and episode.restarts == 1
    assert episode.actions == (task[1], task[0], wrong, *task)
    assert episode.errors[0]["kind"] == "inapplicable" and episode.errors[1] is None
    results = [json.loads(m["content"]) for m in model.prompts[-1] if m["role"] == "tool"]
    assert results[0]["started"] and not results[0]["goal_reached"]
    assert results[1]["actions"] == [task[0]]
    assert results[2]["executed"] is False and results[2]["error"] == "inapplicable"
    assert results[3]["executed"] and results[4]["executed"]
    assert results[5] == {"actions": [task[0], wrong]}
    assert results[6]["valid"] is True
    assert results[7]["reset"] and results[7]["facts"] == results[0]["facts"]
    assert episode.details["tool_calls"] == len(replies) + 1
    assert episode.policy == "agentic" and episode.prompt_version == "agentic-v1"


def test_agentic_policy_records_an_unsolvable_exit_and_its_budget(task):
    model = ScriptedModel([call("get_state"), "I checked everything: this task is UNSOLVABLE."])
    episode = run_episode(gym.make(ENV_ID), AgenticPolicy(model), options={"instance": INSTANCE})
    assert episode.gave_up and not episode.won and episode.details["stop"] == "unsolvable"

    looping = ScriptedModel(lambda messages: call("get_state"))
    episode = run_episode(
        gym.make(ENV_ID), AgenticPolicy(looping, max_model_calls=7), options={"instance": INSTANCE}
    )
    assert episode.details == {"stop": "budget", "model_calls": 7, "tool_calls": 7}
    assert looping.calls == 7 and episode.usage.calls == 7


def test_agentic_policy_answers_bad_tool_calls_and_goes_on(task):
    replies = [
        ToolCall("a", "execute_action", "{not json"),
        call("fly_away"),
        call("get_state", verbose="yes"),
        call("execute_action", action="(feast a)"),
        call("start_session", domain="(define (domain other))", problem="x"),
        "I give up.",
    ]
    model = ScriptedModel(replies)
    episode = run_episode(gym.make(ENV_ID), AgenticPolicy(model), options={"instance": INSTANCE})
    answers = [json.loads(m["content"]) for m in model.prompts[-1] if m["role"] == "tool"]
    assert "not valid JSON" in answers[0]["error"]
    assert "unknown operation 'fly_away'" in answers[1]["error"]
    assert answers[2]["error"] == "get_state takes no arguments, not verbose"
    assert answers[3]["executed"] is False and answers[3]["error"] in ("malformed", "inapplicable")
    assert "holds the task at hand" in answers[4]["error"]
    assert episode.details["stop"] == "finished" and episode.steps == 1


LLM_POLICIES = {
    "closed_loop": ClosedLoopPolicy,
    "open_loop": OpenLoopPolicy,
    "direct": DirectPlanPolicy,
    "agentic": AgenticPolicy,
}


@pytest.mark.parametrize("make", LLM_POLICIES.values(), ids=LLM_POLICIES.keys())
@pytest.mark.parametrize(
    "model, error",
    [
        (BrokenModel(error=RuntimeError("boom")), "client: RuntimeError: boom"),
        (ScriptedModel([]), "client: IndexError: the script has 0 replies"),
        (BrokenModel(reply={"text": "(attack a)"}), "bad_response: broken returned {'text'"),
    ],
    ids=["raises", "script_run_dry", "returns_a_dict"],
)
def test_whatever_a_model_does_is_recorded_on_the_episode(make, model, error):
    episode = run_episode(gym.make(ENV_ID), make(model), options={"instance": INSTANCE})
    assert episode.error.startswith(error) and episode.steps == 0


def test_a_policy_bug_unrelated_to_the_model_still_raises(task, monkeypatch):
    def bug(self, text):
        raise ZeroDivisionError("policy bug")

    monkeypatch.setattr(ClosedLoopPolicy, "_read_steps", bug)
    with pytest.raises(ZeroDivisionError):
        run_episode(
            gym.make(ENV_ID), ClosedLoopPolicy(loop_model(task)), options={"instance": INSTANCE}
        )


@pytest.fixture(scope="module")
def baking_plans():
    """A plan for each Baking-v0 problem; leaving out its first action breaks it."""
    env, plans = gym.make("Baking-v0"), {}
    for instance in range(4):
        _, info = env.reset(options={"instance": instance})
        result = solve(info["domain_pddl"], info["problem_pddl"], planner="lama-first", timeout=60)
        plan = [step.lower() for step in result.plan]
        assert not validate(load(info["domain_pddl"], info["problem_pddl"]), plan[1:]).valid
        plans[instance] = plan
    return plans


@pytest.mark.parametrize("instance", range(4))
def test_every_policy_on_baking(baking_plans, instance):
    plan, env = baking_plans[instance], gym.make("Baking-v0")
    run = lambda policy: run_episode(env, policy, options={"instance": instance})  # noqa: E731
    for horizon in (1, 5, None):
        episode = run(ClosedLoopPolicy(loop_model(plan, mistaken=False), horizon=horizon))
        assert episode.won and episode.steps == len(plan) and episode.restarts == 0
    assert run(OpenLoopPolicy(loop_model(plan, mistaken=False))).won

    recovered = run(ClosedLoopPolicy(loop_model(plan), horizon=5))
    assert recovered.won and recovered.restarts == 1
    assert recovered.actions[-len(plan) :] == tuple(plan)
    assert len(recovered.details["explanations"]) == 1
    lost = run(OpenLoopPolicy(loop_model(plan)))
    assert not lost.won and lost.details["stop"] == "plan_executed"
    assert any(error and error["kind"] == "inapplicable" for error in lost.errors)

    direct = run(DirectPlanPolicy(ScriptedModel(["\n".join(plan[1:]), "\n".join(plan)])))
    assert direct.won and len(direct.details["attempts"]) == 2

    replies = [call("execute_action", action=step) for step in plan[1:]] + [call("reset")]
    replies += [call("execute_action", action=step) for step in plan]
    agentic = run(AgenticPolicy(ScriptedModel(replies)))
    assert agentic.won and agentic.restarts == 1 and agentic.actions[-len(plan) :] == tuple(plan)


def test_following_model_names_the_prompts_it_serves(task):
    model = following_model(lambda messages: ["(attack a)"])
    episode = run_episode(gym.make(ENV_ID), DirectPlanPolicy(model), options={"instance": INSTANCE})
    assert episode.error.startswith("client: ValueError: following_model answers")
