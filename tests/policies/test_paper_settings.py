"""The published policies to the letter: each switch of ClosedLoopPolicy and AgenticPolicy
that reproduces a paper, asserted on the exact prompts a scripted model receives, and
``horizon_sweep.py --paper`` setting all of them.

The closed-loop texts are the horizon study's templates (Feng 2024, "A Study on Planning
with LLMs in Relational Domains"), written out here word for word; the agentic settings
follow PyPDDLEngine's protocol (180 s budget, end on a validated plan, success-or-failure
step feedback).
"""

import json
from itertools import pairwise

import gymnasium as gym
import pytest

import planloop  # noqa: F401
from planloop.envs.baking import ACTIONS
from planloop.llm import ScriptedModel, ToolCall
from planloop.pddl import parse, solve
from planloop.policies import AgenticPolicy, ClosedLoopPolicy, OpenLoopPolicy, run_episode
from planloop.policies.doubles import following_model, has_lessons

from conftest import load_experiment

BAKING = "Baking-v0"

WHY = (
    "Based on your plan, we've just executed these actions:{executed}However, the last "
    "action failed to execute properly. Before we executed the last action, the "
    "following facts were true in the environment:\n\n{state}\n\nThen, we tried "
    "executing this action:\n\n{action}\n\nHowever, executing this action failed. "
    "Please explain what happened."
)
SEQUENCE_TAIL = (
    "Can you please give a sequence of these phrases that will get us to the goal? Include "
    "the exact phrase in each step of your answer. Format it using a numbered list with one "
    'line per step, starting with "1.". Give a little explanation of each step underneath '
    "each bullet point. Mark the end of the plan with '***' in your response. Please avoid "
    "{avoid} past planning mistakes."
)
REPLAN = (
    "Ok, thanks for the explanation. Now, let's replan to the goal from the beginning "
    "and avoid this mistake and all previous mistakes.\n\n"
)
RECAP = (
    "Thanks. Let's think step by step what objects are associated with each of these "
    "actions.\nLet's recap what we've talked about. Currently, the following facts are "
    "true:\n\n{state}\n\nWe want to make these facts true:\n{goal}\n\nWe're thinking "
    "through a plan step-by-step to our goal. \n\n"
)
STEP = (
    "We are about to do the next step in the plan:\n\n{name}\nWe need to identify the "
    "names of the specific objects involved in this action. Here are more details about "
    "how the objects involved need to relate to the action.\n{variables}"
)
VARIABLE = (
    "We are going to {action}. Given knowledge of the current state and our planned "
    "actions, which of the following objects fits the description, {variable}?\n"
    "{objects}\nPlease explain your answer, and then answer with the object name on "
    'the last line after "Answer:".'
)
ROLE = (
    "You are a household robot in a kitchen. You are in front of the kitchen counter, "
    "where there are some prepared ingredients. \n\nMore specifically, you will be "
    "given a set of facts that are currently true in the world, and a set of facts that "
    "is your goal to make true in the world. With my step-by-step guidance, you will "
    "think through how to act to achieve the goal."
)
WORLD = (
    "In the kitchen, there different kinds of objects that you can interact with. The "
    "different kind of objects that you see are categorized into the following:\n\n"
    "{kinds}\n\nRight now, you see the some of these ingredients and items on the "
    "counter. You also see some appliances in the kitchen. \n\nTo start making a "
    "mixture for a souffle, you need to mix together egg yolk, sugar, butter, and a "
    "little bit of flour. To make a mixture for a cake, you need to mix together a "
    "whole egg, sugar, butter, more flour, and baking powder."
)
START = (
    "The following things are true at this moment:\n\n{state}\n\nAs a reminder, in the "
    "kitchen, the pans, measuring cups, and bowls are on the counter, and the oven(s) is "
    "(are) behind the counter. If you are baking desserts, please rationalize what are "
    "the essential ingredients and their amounts to make those desserts and use only "
    "those. Once an ingredient is used once, it can't be reused.\n\nYou should have "
    "all of the ingredients that you need on the counter prepared for you. I'll let you "
    "know what desserts you will make shortly."
)
GOAL = (
    "These are the things that you would like to become true:\n{goal}\n\nThis state is "
    "your goal.\n\nThese are the names of the atomic actions that we can perform, along "
    "with their descriptions:\n{actions}\n\n"
)


@pytest.fixture(scope="module")
def baking():
    """Problem 0 (bake a cake): its plan, the state and goal texts the policy shows, and
    its objects. Leaving out the first action (turning the oven on) fails at the bake."""
    obs, info = gym.make(BAKING).reset(options={"instance": 0})
    result = solve(info["domain_pddl"], info["problem_pddl"], planner="lama-first", timeout=60)
    plan = [step.lower() for step in result.plan]
    assert plan[0] == "(turn-on-oven oven1)" and plan[-1].startswith("(bake-cake")
    domain, problem = parse(info["domain_pddl"], info["problem_pddl"])
    return {
        "plan": plan,
        "state": obs,
        "goal": info["task"],
        "domain": domain,
        "objects": {**domain.constants, **problem.objects},
    }


def candidates(baking, name):
    """The objects each question about a parameter of action ``name`` lists: its type's."""
    return [
        "\n".join(
            o
            for o, kind in baking["objects"].items()
            if baking["domain"].is_subtype(kind, param.types)
        )
        for param in baking["domain"].actions[name].params
    ]


def follower(plan, mistaken=True, learns=True):
    """Follows ``plan``; a mistaken model leaves out its first action until a failure has
    been explained (never, if it does not learn)."""
    return following_model(
        lambda messages: plan[1:] if mistaken and not (learns and has_lessons(messages)) else plan
    )


def play(policy, instance=0, env_id=BAKING):
    return run_episode(gym.make(env_id), policy, options={"instance": instance})


def questions(model):
    """The last message of every call: what the policy asked."""
    return [prompt[-1]["content"] for prompt in model.prompts]


def state_before(observation):
    """An observation without the feedback line on the step before it."""
    return observation.split("\n", 1)[1] if observation.startswith("Done: ") else observation


def test_state_feedback_shows_the_executed_actions_the_state_and_the_action_not_the_cause(baking):
    plan = baking["plan"]
    model = follower(plan)
    episode = play(ClosedLoopPolicy(model, horizon=5, feedback="state"))
    assert episode.won and episode.restarts == 1
    failed = next(i for i, error in enumerate(episode.errors) if error)
    assert episode.actions[failed] == plan[-1] and failed == len(plan) - 2
    executed = "".join(f"\n{i}. {step}" for i, step in enumerate(plan[1:], 1)) + "\n"
    expected = WHY.format(
        executed=executed, state=state_before(episode.observations[failed]), action=plan[-1]
    )
    [asked] = [prompt for prompt in model.prompts if prompt[-1]["content"].startswith("Based on")]
    assert asked[-1]["content"] == expected
    cause = episode.errors[failed]["message"]
    assert cause.startswith("Cannot bake") and "oven1 is turned on" in cause
    seen = "\n".join(m["content"] for m in asked)
    assert cause not in seen and "requires" not in seen and "Done: " not in expected

    model = follower(plan)  # today's default: the cause is shown
    episode = play(ClosedLoopPolicy(model, horizon=5))
    [why] = [q for q in questions(model) if q.startswith("The action ")]
    assert f"The environment said: {cause}" in why and episode.won


def test_per_variable_grounding_asks_one_question_per_parameter_with_its_description(baking):
    plan, state = baking["plan"], baking["state"]
    model = follower(plan, mistaken=False)
    episode = play(ClosedLoopPolicy(model, horizon=2, grounding="per_variable"))
    assert episode.won and episode.actions == tuple(plan)
    asked = questions(model)
    first, second = plan[0].strip("()").split()[0], plan[1].strip("()").split()[0]
    _, text, described = ACTIONS[second]
    variables = list(described.values())
    head = (
        RECAP.format(state=state, goal=baking["goal"])
        + STEP.format(name=second, variables="\n".join(variables))
        + f"\nActions chosen before it in this step: {plan[0]}\n\n"
    )
    mine = [q for q in asked if f"\n\n{second}\nWe need" in q]
    assert mine == [
        head + VARIABLE.format(action=text[:-1].lower(), variable=variable, objects=objects)
        for variable, objects in zip(variables, candidates(baking, second), strict=True)
    ]
    assert "\nbaking-powder1\n" in mine[0] and "\npan1\n" not in mine[0]  # its type only
    assert "We are going to turn on an oven that is off. Given knowledge" in asked[1]
    assert len([q for q in asked if f"\n\n{first}\nWe need" in q]) == 1  # one parameter
    parameters = sum(len(step.split()) - 1 for step in plan)
    assert len(asked) == 5 + parameters  # five proposals, then one call per parameter
    assert episode.prompt_version == "loop-v1+grounding=per_variable"


def test_accumulating_conversation_grows_by_each_question_and_reply(baking):
    plan = baking["plan"]
    model = follower(plan)
    episode = play(ClosedLoopPolicy(model, horizon=3, conversation="accumulate"))
    assert episode.won and episode.restarts == 1
    for before, after in pairwise(model.prompts):
        assert after[: len(before)] == before and len(after) == len(before) + 2
        assert after[len(before)]["role"] == "assistant"
    roles = [m["role"] for m in model.prompts[-1]]
    assert roles[:2] == ["system", "user"] and roles[2:] == ["user", "assistant"] * (
        (len(roles) - 3) // 2
    ) + ["user"]
    assert sum(q.startswith("The action ") for q in questions(model)) == 1
    assert not any(
        m["content"].startswith(("What went wrong", "Actions executed so far"))
        for m in model.prompts[-1]
    )
    rebuilt = follower(plan)
    play(ClosedLoopPolicy(rebuilt, horizon=3))
    assert not any(m["role"] == "assistant" for prompt in rebuilt.prompts for m in prompt)


def test_sequence_asks_for_the_whole_plan_and_executes_its_first_h(baking):
    plan = baking["plan"]
    model = follower(plan)
    episode = play(ClosedLoopPolicy(model, horizon=4, ask="sequence"))
    assert episode.won and episode.restarts == 1
    proposals = [q for q in questions(model) if "Can you please give a sequence" in q]
    actions = "\n".join(f"{name}: {text}" for name, (_, text, _) in ACTIONS.items())
    states = [state_before(obs) for obs in episode.observations]
    body = (
        "Currently, these facts are true:\n\n{state}\n\nWe want these things to be "
        "true:\n\n" + baking["goal"] + "\n\nThese are the names of the atomic actions "
        "that we can perform, along with their descriptions:\n" + actions + "\n\n" + SEQUENCE_TAIL
    )
    # the mistaken attempt: 9 actions in proposals of 4, 4, 1 (the ninth fails)
    assert proposals[0] == body.format(state=states[0], avoid="any")
    assert proposals[1] == body.format(state=states[4], avoid="any")
    assert proposals[3] == REPLAN + body.format(state=states[0], avoid="all")
    assert len(proposals) == 3 + 3 and episode.details["proposals"] == 6
    assert episode.prompt_version == "loop-v1+ask=sequence"


def test_no_restart_cap(baking):
    stubborn = follower(baking["plan"], learns=False)
    episode = play(ClosedLoopPolicy(stubborn, horizon=9, max_restarts=None, max_actions=60))
    assert episode.restarts == 6 and episode.details["stop"] == "action_limit"
    assert len(episode.details["explanations"]) == 6
    assert episode.prompt_version == "loop-v1+max_restarts=None"
    capped = play(
        ClosedLoopPolicy(follower(baking["plan"], learns=False), horizon=9, max_actions=60)
    )
    assert capped.restarts == 5 and capped.details["stop"] == "restart_limit"


def test_switches_are_checked():
    with pytest.raises(ValueError, match="feedback must be one of"):
        ClosedLoopPolicy(ScriptedModel([]), feedback="unmet")
    with pytest.raises(ValueError, match="feedback must be 'cause' or 'outcome'"):
        AgenticPolicy(ScriptedModel([]), feedback="state")
    assert (
        OpenLoopPolicy(ScriptedModel([]), conversation="accumulate").prompt_version
        == "loop-v1+conversation=accumulate"
    )
    with pytest.raises(
        ValueError, match="opening='study' .* needs conversation='accumulate' and ask='sequence'"
    ):
        ClosedLoopPolicy(ScriptedModel([]), opening="study", ask="sequence")


# -- horizon_sweep.py --paper --------------------------------------------------------------


def test_paper_preset_sends_the_studys_prompts(tmp_path, baking):
    sweep = load_experiment("horizon_sweep")
    plan = baking["plan"]
    args = [
        "--env",
        BAKING,
        "--instances",
        "0",
        "--horizons",
        "1",
        "--trials",
        "1",
        "--out",
        str(tmp_path),
    ]
    model = follower(plan)
    assert sweep.main(args + ["--paper"], model=model) == 0
    [record] = [json.loads(line) for line in (tmp_path / "episodes.jsonl").open()]
    assert record["won"] and record["restarts"] == 1
    assert record["prompt_version"] == (
        "loop-v1+feedback=state+grounding=per_variable"
        "+conversation=accumulate+ask=sequence"
        "+opening=study+max_restarts=None"
    )
    assert record["provenance"]["settings"] == {
        "max_actions": 50,
        "temperature": None,  # the study states none: the provider's default
        "feedback": "state",
        "grounding": "per_variable",
        "conversation": "accumulate",
        "ask": "sequence",
        "opening": "study",
        "max_restarts": None,
        "protocol": "baking",
        "overrides": {"trials": 1},  # the paper's 5
    }
    table = (tmp_path / "success.md").read_text()
    assert "| horizon | problem 0 | all | model errors |" in table
    assert "Protocol: A Study on Planning with LLMs in Relational Domains" in table

    conversation = model.prompts[-1]  # one conversation: the last call holds every turn
    assert all(prompt == conversation[: len(prompt)] for prompt in model.prompts)
    assert conversation[0]["role"] == "user"  # no system message: the study's turns only
    asked = [m["content"] for m in conversation if m["role"] == "user"]
    state, goal = baking["state"], baking["goal"]
    kinds = "\n".join(kind.replace("-", " ") for kind in baking["domain"].types if kind != "object")
    actions = "\n".join(f"{name}: {text}" for name, (_, text, _) in ACTIONS.items())
    assert asked[:4] == [
        ROLE,
        WORLD.format(kinds=kinds),
        START.format(state=state),
        GOAL.format(goal=goal, actions=actions) + SEQUENCE_TAIL.format(avoid="any"),
    ]
    assert "measuring cup\nsmall bowl\n" not in kinds and "\nmeasuring cup\n" in kinds
    # horizon 1: the first step of the sequence (the model's line for it), introduced
    # with the recap, then one question per parameter over the objects of its type
    name = plan[1].strip("()").split()[0]  # the mistaken plan starts with the second action
    _, text, described = ACTIONS[name]
    assert asked[4] == RECAP.format(state=state, goal=goal) + STEP.format(
        name=f"1. {name}", variables="\n".join(described.values())
    )
    assert asked[5] == VARIABLE.format(
        action=text[:-1].lower(),
        variable=list(described.values())[0],
        objects=candidates(baking, name)[0],
    )
    # a proposal per step: after the opening, 8 more in the mistaken attempt (its ninth
    # step fails); in the second, the replan, then one after each of the 9 steps but the last
    assert sum(q.startswith("Currently, these facts are true") for q in asked) == (
        len(plan) - 2
    ) + (len(plan) - 1)
    [why] = [q for q in asked if q.startswith("Based on your plan")]
    assert why.startswith(
        "Based on your plan, we've just executed these actions:\n1. " + plan[1] + "\n2. "
    ) and why.endswith(
        f"Then, we tried executing this action:\n\n{plan[-1]}\n\nHowever, executing this "
        "action failed. Please explain what happened."
    )
    assert not any("Cannot" in q or "requires" in q for q in asked)  # the cause, never
    replan = asked[asked.index(why) + 1]
    assert replan.startswith(REPLAN + "Currently, these facts are true:\n\n" + state)
    assert replan.endswith(SEQUENCE_TAIL.format(avoid="all"))
    assert not any(q.startswith(("The next action is", "What are the next")) for q in asked)

    calls = model.calls  # a flag beside --paper wins, and the settings make a new key
    assert sweep.main(args + ["--paper", "--feedback", "cause"], model=model) == 0
    records = [json.loads(line) for line in (tmp_path / "episodes.jsonl").open()]
    assert len(records) == 2 and model.calls > calls
    assert "+feedback=" not in records[1]["prompt_version"]
    assert records[1]["provenance"]["settings"]["overrides"] == {"trials": 1, "feedback": "cause"}
    assert "; overridden: trials=1, feedback=cause" in (tmp_path / "success.md").read_text()
    assert any(q.startswith("The action ") for q in questions(model)[calls:])


def test_flags_of_the_switches(tmp_path, capsys, baking):
    sweep = load_experiment("horizon_sweep")
    model = follower(baking["plan"], learns=False)
    args = [
        "--env",
        BAKING,
        "--instances",
        "0",
        "--horizons",
        "9",
        "--trials",
        "1",
        "--out",
        str(tmp_path),
        "--max-restarts",
        "none",
        "--max-actions",
        "30",
        "--grounding",
        "per_variable",
        "--conversation",
        "accumulate",
        "--ask",
        "sequence",
    ]
    assert sweep.main(args, model=model) == 0
    [record] = [json.loads(line) for line in (tmp_path / "episodes.jsonl").open()]
    assert record["restarts"] == 3 and record["details"]["stop"] == "action_limit"
    assert record["prompt_version"] == (
        "loop-v1+grounding=per_variable+conversation=accumulate+ask=sequence+max_restarts=None"
    )
    with pytest.raises(SystemExit):
        sweep.main(args[:-1] + ["plan"])
    assert "invalid choice: 'plan'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        sweep.main(["--max-restarts", "some", "--llm", "openai:x"])
    assert "max restarts is a count or 'none'" in capsys.readouterr().err


# -- AgenticPolicy -------------------------------------------------------------------------


def call(name, **arguments):
    call.count = getattr(call, "count", 0) + 1
    return ToolCall(f"paper-{call.count}", name, json.dumps(arguments))


def tool_results(model):
    return [json.loads(m["content"]) for m in model.prompts[-1] if m["role"] == "tool"]


def test_agentic_wall_clock_budget(baking):
    slow = ScriptedModel(lambda messages: call("get_state"), delay=0.15)
    episode = play(AgenticPolicy(slow, seconds=0.4))
    assert episode.details["stop"] == "timeout" and episode.gave_up and not episode.won
    assert 1 <= slow.calls <= 3 and episode.details["tool_calls"] == slow.calls - 1
    assert episode.prompt_version == "agentic-v1+seconds=0.4"


def test_agentic_ends_when_validate_plan_confirms_a_plan(baking):
    plan = baking["plan"]
    replies = [
        call("execute_action", action=plan[0]),
        call("validate_plan", plan="\n".join(plan[1:])),
        call("validate_plan", plan="\n".join(plan)),
        call("get_state"),
    ]
    model = ScriptedModel(replies)
    episode = play(AgenticPolicy(model, end_on_valid_plan=True))
    assert episode.won and model.calls == 3 and episode.details["stop"] == "validated"
    assert episode.restarts == 1 and episode.actions == (plan[0], *plan)
    assert episode.details["plan"] == plan
    assert [r["valid"] for r in tool_results(model)[1:]] == [False, True]
    assert "ends as soon as validate_plan confirms" in model.prompts[0][0]["content"]
    assert episode.prompt_version == "agentic-v1+end_on_valid_plan"

    model = ScriptedModel(replies[1:3] + ["Done."])  # by default the model goes on
    episode = play(AgenticPolicy(model))
    assert not episode.won and model.calls == 3 and episode.details["stop"] == "finished"


def test_agentic_outcome_feedback_is_success_or_failure_only(baking):
    plan = baking["plan"]
    replies = [
        call("execute_action", action=plan[-1]),
        call("execute_action", action=plan[0]),
        "I stop here.",
    ]
    model = ScriptedModel(replies)
    episode = play(AgenticPolicy(model, feedback="outcome", seconds=180, end_on_valid_plan=True))
    failed, done = tool_results(model)
    assert failed == {"executed": False}
    assert done["executed"] and done["goal_reached"] is False and "observation" not in done
    assert "(oven-on oven1)" in done["facts"]
    assert "unmet" not in json.dumps(model.prompts[-1]) and "Cannot" not in json.dumps(
        model.prompts[-1]
    )
    assert episode.prompt_version == "agentic-v1+seconds=180+end_on_valid_plan+feedback=outcome"

    model = ScriptedModel(replies)  # today's default: the cause and the unmet facts
    play(AgenticPolicy(model))
    failed, done = tool_results(model)
    assert (
        failed["error"] == "inapplicable"
        and failed["unmet"]
        and failed["message"].startswith("Cannot")
        and done["observation"].startswith("Done: ")
    )
