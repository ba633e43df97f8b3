"""Each family's players: the oracle wins every episode of the smoke suite's families
that play an environment, random plays the admissible actions, the replanner plays
contingent alone; and a loss is told as one failure kind."""

import pytest

from planloop.bench.families import judge, make_env, make_policy, plays
from planloop.bench.records import FAILURE_KINDS
from planloop.bench.suite import load_suite
from planloop.policies import run_episode
from planloop.policies.runner import Episode

SMOKE = load_suite("smoke")
PLAYED = [f for f in SMOKE.families if f.base not in ("nl-pddl", "twx")]


def play(family, unit, player):
    env = make_env(family, unit)
    try:
        policy, played = make_policy(family, env, player, unit.seed)
        return run_episode(
            played, policy, seed=unit.seed, options={"instance": unit.instance},
            max_steps=family.max_steps,
        )  # fmt: skip
    finally:
        env.close()


@pytest.mark.parametrize("family", PLAYED, ids=lambda f: f.name)
def test_the_oracle_wins_every_episode(family):
    for unit in family.units:
        episode = play(family, unit, "oracle")
        assert episode.won, (unit.id, unit.seed, episode.details)


def test_random_loses_with_a_kind_and_plays_admissible_commands():
    family = SMOKE.family("blocksworld")
    episode = play(family, family.units[0], "random")
    assert not episode.won and all(error is None for error in episode.errors)
    assert judge(episode, False) == ("step_limit", f"{family.max_steps} steps")


def test_who_plays_what():
    nl, contingent = SMOKE.family("nl-pddl"), SMOKE.family("contingent")
    assert not plays("random", nl) and plays("oracle", nl) and plays("openai:x", nl)
    assert plays("replanner", contingent) and not plays("replanner", SMOKE.family("blocksworld"))
    assert not plays("replanner", SMOKE.family("contingent-obfuscated"))


def episode(**fields) -> Episode:
    base = dict(
        env_id="x", instance=0, seed=0, policy="p", model="m", prompt_version=None,
        won=False, steps=0, restarts=0, truncated=False, gave_up=False, actions=(),
        observations=(), errors=(),
    )  # fmt: skip
    return Episode(**{**base, **fields})


@pytest.mark.parametrize(
    "fields, exhausted, kind",
    [
        ({"won": True}, False, None),
        ({"error": "client: call limit", "error_kind": "client"}, True, "call_limit"),
        ({"error": "timeout: slow", "error_kind": "timeout"}, False, "model_timeout"),
        ({"error": "connection: refused", "error_kind": "connection"}, False, "model_unreachable"),
        ({"error": "bad_request: x", "error_kind": "bad_request"}, False, "model_bad_request"),
        ({"error": "auth: no key", "error_kind": "auth"}, False, "model_refused"),
        ({"error": "server: 500", "error_kind": "server"}, False, "model_error"),
        (
            {"error": "unreadable_reply: no JSON", "error_kind": "unreadable_reply"},
            False,
            "unreadable_reply",
        ),
        (
            {"truncated": True, "steps": 4, "errors": ({"kind": "unknown"},) * 3 + (None,)},
            False,
            "invalid_action",
        ),
        ({"truncated": True, "steps": 4, "errors": (None,) * 4}, False, "step_limit"),
        (
            {"gave_up": True, "details": {"stop": "solver error not fixed after 2 retries"}},
            False,
            "pddl_error",
        ),
        ({"gave_up": True, "details": {"stop": "no_actions"}}, False, "unreadable_reply"),
        ({"gave_up": True, "details": {"stop": "plan_executed"}}, False, "goal_not_reached"),
        ({"gave_up": True, "details": {"stop": "restart_limit"}}, False, "invalid_action"),
        ({"gave_up": True}, False, "gave_up"),
        ({"steps": 3}, False, "lost"),
    ],
)
def test_a_loss_is_one_kind(fields, exhausted, kind):
    found, detail = judge(episode(**fields), exhausted)
    assert found == kind and (kind is None or found in FAILURE_KINDS)
    assert (detail == "") == (kind is None) and len(detail) <= 300
