"""ClosedLoopPolicy's switches as strategy objects: each choice's name stands for one, a
strategy object plays exactly as its name, and a protocol can assemble its own."""

from typing import get_args

import gymnasium as gym
import pytest

import planloop  # noqa: F401
from planloop.llm import ScriptedModel
from planloop.pddl import solve
from planloop.policies import ClosedLoopPolicy, run_episode
from planloop.policies.doubles import following_model, has_lessons
from planloop.policies.loop import (
    ASKS,
    CHOICES,
    CONVERSATIONS,
    DEFAULTS,
    FEEDBACKS,
    GROUNDINGS,
    OPENINGS,
    AccumulatedConversation,
    AskName,
    AskSequence,
    CauseFeedback,
    ConversationName,
    FeedbackName,
    GroundingName,
    OpeningName,
    PerVariableGrounding,
    StateFeedback,
    StudyOpening,
)
from planloop.policies.loop.policy import choose

BAKING = "Baking-v0"
SWITCHES = {  # each switch's choices, and its strategy of each
    "feedback": (FeedbackName, FEEDBACKS),
    "grounding": (GroundingName, GROUNDINGS),
    "conversation": (ConversationName, CONVERSATIONS),
    "ask": (AskName, ASKS),
    "opening": (OpeningName, OPENINGS),
}
PAPER = {
    "feedback": "state",
    "grounding": "per_variable",
    "conversation": "accumulate",
    "ask": "sequence",
    "opening": "study",
}


@pytest.fixture(scope="module")
def plan():
    _, info = gym.make(BAKING).reset(options={"instance": 0})
    result = solve(info["domain_pddl"], info["problem_pddl"], planner="lama-first", timeout=60)
    return [step.lower() for step in result.plan]


def mistaken(plan):
    """Leaves out the plan's first action until a failure has been explained."""
    return following_model(lambda messages: plan if has_lessons(messages) else plan[1:])


def play(policy):
    return run_episode(gym.make(BAKING), policy, options={"instance": 0})


@pytest.mark.parametrize("switch", SWITCHES)
def test_each_switchs_choices_are_its_literal_and_name_their_strategies(switch):
    names, strategies = SWITCHES[switch]
    assert CHOICES[switch] == get_args(names) and DEFAULTS[switch] in CHOICES[switch]
    for choice in CHOICES[switch]:
        assert choose(switch, choice, strategies).name == choice
    with pytest.raises(ValueError, match=f"{switch} must be one of"):
        choose(switch, "nonsense", strategies)


def test_strategy_objects_play_exactly_as_their_names(plan):
    by_name, by_object = mistaken(plan), mistaken(plan)
    named = play(ClosedLoopPolicy(by_name, horizon=3, **PAPER))
    built = play(
        ClosedLoopPolicy(
            by_object,
            horizon=3,
            feedback=StateFeedback(),
            grounding=PerVariableGrounding(),
            conversation=AccumulatedConversation(),
            ask=AskSequence(),
            opening=StudyOpening(),
        )
    )
    assert named.won and named.restarts == 1
    assert by_object.prompts == by_name.prompts and built.actions == named.actions
    assert built.prompt_version == named.prompt_version


class TerseFeedback(CauseFeedback):
    """A protocol's own feedback: the failed action only."""

    name = "terse"

    def question(self, action, situation, state, attempt, info):
        return f"The action {action} failed. Why?"


def test_a_protocol_assembles_its_own_strategy(plan):
    model = mistaken(plan)
    episode = play(ClosedLoopPolicy(model, horizon=3, feedback=TerseFeedback()))
    assert episode.won and episode.restarts == 1
    assert episode.prompt_version == "loop-v1+feedback=terse"
    assert f"The action {plan[-1]} failed. Why?" in [
        prompt[-1]["content"] for prompt in model.prompts
    ]


def test_the_study_opening_checks_the_strategies_it_is_given():
    with pytest.raises(ValueError, match="needs conversation='accumulate' and ask='sequence'"):
        ClosedLoopPolicy(
            ScriptedModel([]), opening=StudyOpening(), conversation=AccumulatedConversation()
        )
    policy = ClosedLoopPolicy(
        ScriptedModel([]),
        opening=StudyOpening(),
        conversation=AccumulatedConversation(),
        ask=AskSequence(),
    )
    assert policy.prompt_version == "loop-v1+conversation=accumulate+ask=sequence+opening=study"
