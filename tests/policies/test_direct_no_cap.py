"""DirectPlanPolicy as the agentic step-wise planning paper runs its direct baseline: no
cap on samples (``max_attempts=None``), resampling until a plan validates or the seconds
end, and ``details["stop"]`` saying which. Budgets are counted on a fake clock that the
model double advances."""

from types import SimpleNamespace

import gymnasium as gym
import pytest

import planloop  # noqa: F401
from planloop.llm import LLMError, ScriptedModel
from planloop.pddl import solve
from planloop.policies import DirectPlanPolicy, direct, run_episode

from conftest import IPC


@pytest.fixture(scope="module")
def blocks():
    """The IPC-2000 Blocksworld instance-1 (4 blocks) and an optimal plan of it."""
    env = gym.make("PDDL-v0", domain=str(IPC / "domain.pddl"), problem=str(IPC / "instances"))
    _, info = env.reset(options={"instance": 0})
    plan = list(solve(info["domain_pddl"], info["problem_pddl"], planner="bfs", timeout=30).plan)
    return env, plan


class FakeClock:
    """``time.monotonic`` for the policy: ``tick`` seconds pass per model call."""

    def __init__(self, tick: float):
        self.now, self.tick = 0.0, tick

    def monotonic(self) -> float:
        return self.now

    def model(self, replies):
        replies = iter(replies)

        def answer(messages):
            self.now += self.tick
            return next(replies)

        return ScriptedModel(answer)


def test_no_cap_resamples_past_five_until_a_plan_validates(blocks):
    env, plan = blocks
    wrong, right = "\n".join(plan[1:]), "\n".join(plan)
    model = ScriptedModel([wrong] * 11 + [right])
    policy = DirectPlanPolicy.paper(model)
    episode = run_episode(env, policy, options={"instance": 0})
    assert episode.won and model.calls == 12 and episode.details["stop"] == "valid"
    assert [a["verdict"] for a in episode.details["attempts"]] == ["precondition"] * 11 + ["valid"]


def test_no_cap_ends_when_the_seconds_end_and_a_late_reply_is_not_used(blocks, monkeypatch):
    env, plan = blocks
    clock = FakeClock(tick=50.0)
    monkeypatch.setattr(direct, "time", SimpleNamespace(monotonic=clock.monotonic))
    wrong = "\n".join(plan[1:])
    model = clock.model([wrong, wrong, wrong, "\n".join(plan)])  # the right one at 200 s
    episode = run_episode(
        env, DirectPlanPolicy(model, max_attempts=None, max_seconds=180), options={"instance": 0}
    )
    assert model.calls == 4 and len(episode.details["attempts"]) == 3
    assert episode.details["stop"] == "timeout" and not episode.won


def test_the_attempt_cap_is_a_budget_and_a_failed_call_a_model_error(blocks):
    env, plan = blocks
    episode = run_episode(
        env, DirectPlanPolicy(ScriptedModel(["\n".join(plan[1:])] * 5)), options={"instance": 0}
    )
    assert episode.details["stop"] == "budget" and len(episode.details["attempts"]) == 5
    failing = ScriptedModel(["\n".join(plan[1:]), LLMError("server", "503 after retries")])
    episode = run_episode(env, DirectPlanPolicy.paper(failing), options={"instance": 0})
    assert episode.error and episode.details["stop"] == "model_error"
    assert len(episode.details["attempts"]) == 1


def test_no_cap_at_all_is_refused():
    with pytest.raises(ValueError, match="give max_seconds"):
        DirectPlanPolicy(ScriptedModel([]), max_attempts=None)
