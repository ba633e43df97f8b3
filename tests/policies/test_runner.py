"""run_episode and the classical baselines, on Mystery-BW-v0."""

import gymnasium as gym

import planloop  # noqa: F401
from planloop.llm import LLMError, ScriptedModel, Usage
from planloop.policies import GIVE_UP, RESTART, PlannerPolicy, RandomPolicy, run_episode


def test_planner_policy_wins_and_is_recorded():
    env = gym.make("Mystery-BW-v0")
    episode = run_episode(env, PlannerPolicy("lama-first", timeout=30), options={"instance": 7})
    assert episode.won and not episode.truncated and not episode.gave_up
    assert episode.env_id == "Mystery-BW-v0" and episode.instance == 7
    assert episode.steps == len(episode.actions) and len(episode.observations) == episode.steps + 1
    assert all(e is None for e in episode.errors)
    assert episode.policy == "planner:lama-first"
    assert episode.to_json()["actions"][0].startswith("(")


def test_random_policy_is_seeded_and_truncated_by_the_step_limit():
    runs = [
        run_episode(gym.make("Blocksworld-v0", max_episode_steps=15), RandomPolicy(seed=3), seed=1)
        for _ in range(2)
    ]
    assert runs[0].actions == runs[1].actions
    assert runs[0].steps <= 15
    assert runs[0].won or runs[0].truncated


class ScriptPolicy:
    """Replays fixed commands, sentinels included, and spends a scripted model's calls."""

    name = "script"
    model_name = "scripted"
    prompt_version = "test-v1"

    def __init__(self, commands, model=None):
        self.commands = list(commands)
        self.model = model
        self.usage = Usage()

    def reset(self, obs, info):
        pass

    def act(self, obs, info):
        if self.model is not None:
            self.usage = self.usage + self.model.complete([{"role": "user", "content": obs}]).usage
        return self.commands.pop(0)


def test_restart_replays_the_same_instance_and_errors_are_kept():
    env = gym.make("Mystery-BW-v0")
    episode = run_episode(
        env, ScriptPolicy(["(feast a b)", RESTART, "(attack a)", GIVE_UP]), options={"instance": 0}
    )
    assert episode.restarts == 1 and episode.gave_up and not episode.won
    assert episode.actions == ("(feast a b)", "(attack a)")
    assert episode.errors[0]["kind"] == "inapplicable" and episode.errors[1] is None
    assert episode.observations[2] == episode.observations[0]  # the same initial state
    assert episode.restarted_after == (1,)  # the restart's place among the observations


def test_model_usage_and_failures_are_recorded_not_raised():
    model = ScriptedModel(["x", "y", LLMError("rate_limited", "slow down")])
    policy = ScriptPolicy(["(attack a)", "(succumb a)", "(attack a)"], model=model)
    episode = run_episode(gym.make("Mystery-BW-v0"), policy, options={"instance": 0})
    assert episode.error == "rate_limited: slow down"
    assert episode.error_kind == "rate_limited"  # typed, not read back from the text
    assert episode.steps == 2 and episode.usage.calls == 2
    assert episode.model == "scripted" and episode.prompt_version == "test-v1"


def test_max_steps_caps_the_episode():
    policy = ScriptPolicy(["(fly)"] * 10)
    episode = run_episode(gym.make("Mystery-BW-v0"), policy, options={"instance": 0}, max_steps=4)
    assert episode.steps == 4 and episode.truncated


def test_extract_plan_from_chatty_answers():
    from planloop.policies.extract import extract_plan

    text = "Sure! Here is the plan:\n```pddl\n(Attack A)\n(overcome a, c) ; stack\n```\nDone."
    assert extract_plan(text) == ["(attack a)", "(overcome a c)"]
    assert extract_plan("1. (feast c b)\n2. (succumb c)") == ["(feast c b)", "(succumb c)"]
    assert extract_plan("no plan, sorry") == []


def test_direct_policy_resamples_until_valid_and_plays_that_plan():
    from planloop.policies.direct import DirectPlanPolicy

    env = gym.make("Mystery-BW-v0")
    _, info = env.reset(options={"instance": 0})
    good = PlannerPolicy("bfs")
    good.reset("", info)
    right = "\n".join(good.result.plan)
    model = ScriptedModel(["(feast a b)", "I cannot do this.", f"```\n{right}\n```"])
    policy = DirectPlanPolicy(model, max_attempts=5)
    episode = run_episode(env, policy, options={"instance": 0})
    assert episode.won and model.calls == 3 and episode.usage.calls == 3
    assert [a["verdict"] for a in policy.attempts] == ["precondition", "goal", "valid"]


def test_direct_policy_respects_its_attempt_budget():
    from planloop.policies.direct import DirectPlanPolicy

    model = ScriptedModel(lambda messages: "(feast a b)")
    policy = DirectPlanPolicy(model, max_attempts=3)
    episode = run_episode(gym.make("Mystery-BW-v0"), policy, options={"instance": 0})
    assert model.calls == 3 and not episode.won
    assert episode.errors[0]["kind"] == "inapplicable"  # the last sample was played


class FailingReset(ScriptPolicy):
    def reset(self, obs, info):
        raise LLMError("bad_response", "not JSON")


def test_a_model_failure_in_reset_is_recorded_not_raised():
    episode = run_episode(
        gym.make("Mystery-BW-v0"), FailingReset(["(attack a)"]), options={"instance": 0}
    )
    assert episode.error == "bad_response: not JSON" and episode.error_kind == "bad_response"
    assert episode.steps == 0 and not episode.truncated and not episode.won
