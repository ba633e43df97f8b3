"""The Policy protocol: what the runner reads of every policy, and the defaults a policy
that keeps only ``reset`` and ``act`` gets."""

import gymnasium as gym
import pytest

import planloop  # noqa: F401
from planloop.llm import ScriptedModel, Usage
from planloop.policies import (
    GIVE_UP,
    AgenticPolicy,
    ClosedLoopPolicy,
    DirectPlanPolicy,
    OpenLoopPolicy,
    PlanGenPolicy,
    PlanGenStepsPolicy,
    PlannerPolicy,
    Policy,
    RandomPolicy,
    RepairPipelinePolicy,
    run_episode,
)
from planloop.policies.base import PolicyAdapter, as_policy


class Plain:
    """The least a policy does: one move, then give up."""

    def reset(self, obs, info):
        self.moves = ["(attack a)"]

    def act(self, obs, info):
        return self.moves.pop(0) if self.moves else GIVE_UP


class Judging(Plain):
    """A name, a model's usage and a ``finish``, but no details."""

    name = "judging"
    usage = Usage(calls=2)

    def finish(self, obs, info):
        self.last = obs


def test_a_policy_with_only_reset_and_act_runs_with_the_defaults():
    episode = run_episode(gym.make("Mystery-BW-v0"), Plain(), options={"instance": 0})
    assert episode.actions == ("(attack a)",) and episode.gave_up
    assert episode.policy == "Plain" and episode.model is None and episode.prompt_version is None
    assert episode.usage == Usage() and episode.details == {}


def test_what_a_partial_policy_has_is_read_and_its_finish_is_called():
    policy = Judging()
    episode = run_episode(gym.make("Mystery-BW-v0"), policy, options={"instance": 0})
    assert episode.policy == "judging" and episode.usage == Usage()  # none spent in it
    assert policy.last == episode.observations[-1]
    assert isinstance(as_policy(policy), PolicyAdapter)


MODEL = ScriptedModel([])
EVERY_POLICY = [
    AgenticPolicy(MODEL),
    ClosedLoopPolicy(MODEL),
    OpenLoopPolicy(MODEL),
    DirectPlanPolicy(MODEL),
    PlanGenPolicy(MODEL),
    PlanGenStepsPolicy(MODEL),
    PlannerPolicy(),
    RandomPolicy(),
    RepairPipelinePolicy(MODEL),
]


@pytest.mark.parametrize("policy", EVERY_POLICY, ids=lambda policy: type(policy).__name__)
def test_every_policy_keeps_the_whole_protocol_and_is_run_as_it_is(policy):
    assert isinstance(policy, Policy) and as_policy(policy) is policy
    assert isinstance(policy.usage, Usage) and policy.details == {}
