"""AgenticPolicy as the agentic step-wise planning paper runs it: no cap on calls
(``max_model_calls=None``, ``max_tool_calls=None``), the episode ending on the model's
own exit, the seconds, or a failed call, each recorded in ``details["stop"]``. Budgets
are counted as calls, or on a fake clock that the model double advances."""

import json
from types import SimpleNamespace

import gymnasium as gym
import pytest

import planloop  # noqa: F401
from planloop.llm import LLMError, ScriptedModel, ToolCall
from planloop.policies import AgenticPolicy, agentic, run_episode

from conftest import IPC

UNCAPPED = {"max_model_calls": None, "max_tool_calls": None}


@pytest.fixture
def env():
    return gym.make("PDDL-v0", domain=str(IPC / "domain.pddl"), problem=str(IPC / "instances"))


def get_state(number: int) -> ToolCall:
    return ToolCall(f"call-{number}", "get_state", json.dumps({}))


def play(env, policy):
    return run_episode(env, policy, options={"instance": 0})


def test_no_caps_go_past_sixty_calls_until_the_model_exits(env):
    replies = [get_state(i) for i in range(80)] + ["Every tower is stuck: UNSOLVABLE."]
    model = ScriptedModel(replies)
    episode = play(env, AgenticPolicy(model, seconds=3600, **UNCAPPED))
    assert model.calls == 81 and episode.details == {
        "stop": "unsolvable",
        "model_calls": 81,
        "tool_calls": 80,
    }
    assert episode.gave_up and not episode.won

    capped = ScriptedModel(replies)  # today's default: 60 model calls
    episode = play(env, AgenticPolicy(capped))
    assert capped.calls == 60 and episode.details["stop"] == "budget"


def test_no_caps_end_when_the_seconds_end_and_a_late_reply_is_not_acted_on(env, monkeypatch):
    clock = SimpleNamespace(now=0.0)
    monkeypatch.setattr(agentic, "time", SimpleNamespace(monotonic=lambda: clock.now))

    def slow(messages):
        clock.now += 50.0
        return get_state(len(messages))

    model = ScriptedModel(slow)
    episode = play(env, AgenticPolicy(model, seconds=180, **UNCAPPED))
    assert model.calls == 4 and episode.details == {
        "stop": "timeout",
        "model_calls": 4,
        "tool_calls": 3,
    }


def test_a_failed_call_is_recorded_as_a_model_error(env):
    model = ScriptedModel([get_state(0), LLMError("server", "503 after retries")])
    episode = play(env, AgenticPolicy(model, seconds=180, **UNCAPPED))
    assert episode.error and episode.details["stop"] == "model_error"


def test_no_bound_at_all_is_refused():
    with pytest.raises(ValueError, match="give seconds"):
        AgenticPolicy(ScriptedModel([]), **UNCAPPED)
