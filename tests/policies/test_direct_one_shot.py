"""DirectPlanPolicy's PlanBench prompt: one solved example before the task, the exact
prompt the model receives, its words read back into commands, and the paper preset."""

import gymnasium as gym
import pytest

import planloop  # noqa: F401
from planloop.llm import ScriptedModel
from planloop.policies import DirectPlanPolicy, run_episode
from planloop.policies.direct import Example

from conftest import PLANBENCH

FILES = str(PLANBENCH / "blocksworld" / "generated_basic")  # instance-1, instance-10, ...
EXAMPLE_PLAN = ("(feast d c)", "(succumb d)", "(attack c)", "(overcome c a)")  # instance-10
# instance-1 of PlanBench's Mystery files, as PlanBench words it
TASK = """[STATEMENT]
As initial conditions I have that, harmony, planet object a, object b craves object c, \
planet object c, planet object d, province object a, province object b and province object d.
My goal is to have that object c craves object b.

My plan is as follows:

[PLAN]"""
EXAMPLE = """[STATEMENT]
As initial conditions I have that, harmony, object a craves object b, planet object b, \
planet object c, object d craves object c, province object a and province object d.
My goal is to have that object c craves object a.

My plan is as follows:

[PLAN]
feast object d from object c
succumb object d
attack object c
overcome object c from object a
[PLAN END]"""
# the Mystery domain in words, in PlanBench's manner: no PDDL
INTRO = """The actions, on any objects x, y, ... that fit:
- attack object x
  needs: province object x, planet object x and harmony
  makes true: pain object x
  makes false: province object x, planet object x and harmony
- succumb object x
  needs: pain object x
  makes true: province object x, harmony and planet object x
  makes false: pain object x
- overcome object x from object y
  needs: province object y and pain object x
  makes true: harmony, province object x and object x craves object y
  makes false: province object y and pain object x
- feast object x from object y
  needs: object x craves object y, province object x and harmony
  makes true: pain object x and province object y
  makes false: object x craves object y, province object x and harmony

Each task below gives the initial conditions and the goal in words. Write a plan that \
reaches the goal: one action per line, worded as the actions above with the task's \
objects, then [PLAN END]."""
ANSWER = (
    "feast object b from object c\nsuccumb object b\nattack object c\n"
    "overcome object c from object b\n[PLAN END]"
)


@pytest.fixture
def env():
    return gym.make("Mystery-BW-v0", instances=FILES)


def example(env) -> Example:
    _, info = env.reset(options={"instance": 1})
    return Example(info["problem_pddl"], EXAMPLE_PLAN)


def test_one_shot_prompt_is_planbench_words_and_its_answer_wins(env):
    model = ScriptedModel([ANSWER])
    policy = DirectPlanPolicy(model, prompt="planbench", examples=[example(env)])
    episode = run_episode(env, policy, options={"instance": 0})
    _, info = env.reset(options={"instance": 0})
    assert "craves" in info["domain_pddl"]  # the Mystery names, in words below
    assert model.prompts == [[{"role": "user", "content": f"{INTRO}\n\n{EXAMPLE}\n\n{TASK}"}]]
    assert episode.won and episode.prompt_version == "direct-planbench-v2"
    assert list(episode.actions) == ["(feast b c)", "(succumb b)", "(attack c)", "(overcome c b)"]


def test_zero_shot_planbench_prompt_has_only_the_task(env):
    model = ScriptedModel(
        ["1. Feast object b from object c.\n(succumb b)\nfly object b\n[PLAN END]\nattack object c"]
    )
    episode = run_episode(
        env, DirectPlanPolicy(model, max_attempts=1, prompt="planbench"), options={"instance": 0}
    )
    assert model.prompts[0][0]["content"].endswith("[PLAN END].\n\n" + TASK)
    # numbering and full stop dropped, a command read as one, an unknown line played as
    # written (the environment refuses it), nothing after [PLAN END]
    assert list(episode.actions) == ["(feast b c)", "(succumb b)", "fly object b"]
    assert episode.errors[2]["kind"] == "unknown"
    assert episode.details["attempts"][0]["verdict"] == "bad_action" and not episode.won


def test_paper_preset_and_bad_arguments():
    model = ScriptedModel([])
    policy = DirectPlanPolicy.paper(model)
    assert (policy.temperature, policy.max_seconds, policy.max_attempts) == (0.2, 180.0, None)
    shot = DirectPlanPolicy.paper(model, prompt="planbench", max_attempts=1)
    assert (shot.temperature, shot.max_attempts, shot.prompt) == (0.2, 1, "planbench")
    with pytest.raises(ValueError, match="planbench"):
        DirectPlanPolicy(model, examples=[Example("(define)", ())])
    with pytest.raises(ValueError, match="prompt must be"):
        DirectPlanPolicy(model, prompt="haiku")


def test_paper_preset_samples_at_temperature_0_2(env):
    seen = []

    class Recorder(ScriptedModel):
        def complete(self, messages, tools=None, **params):
            seen.append(params)
            return super().complete(messages, tools, **params)

    run_episode(
        env, DirectPlanPolicy.paper(Recorder([ANSWER]), prompt="planbench"), options={"instance": 0}
    )
    assert seen == [{"temperature": 0.2, "seed": 0}]
