"""What each family plays: its environment (under made-up names for ``-obfuscated``),
the policy a model plays it with, the reference players, and how an episode that was
not won is told as one :data:`~.records.FailureKind`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, get_args

import gymnasium as gym

from ..envs.catalog import entry
from ..llm import ChatModel
from ..policies import (
    ClosedLoopPolicy,
    ContingentReplanner,
    OraclePolicy,
    PlanGenPolicy,
    Policy,
    RandomPolicy,
)
from ..policies.runner import Episode
from ..protocols.pddlego_plus.config import PDDLegoConfig
from ..protocols.pddlego_plus.episodes import TAKE_RULES
from ..protocols.pddlego_plus.episodes import make_policy as pddlego_policy
from ..wrappers import AutoTakeCoin, ObfuscateNames, RenameWords
from .records import FailureKind
from .suite import Family, Unit

Player = Literal["oracle", "random", "replanner"]
PLAYERS: tuple[Player, ...] = get_args(Player)
PLAYER_HELP = (
    "oracle (plays the ground truth), random (uniform over the admissible actions), "
    "replanner (the contingent families' belief-tracking replanner)"
)
OBFUSCATION_SEED = 0  # the made-up names of every -obfuscated family
CLOSED_LOOP_RESTARTS = 3  # the closed-loop policy asks for whole plans, restarting 3 times
DETAIL = 300  # characters of a failure's detail kept in a record
ERROR_KINDS: dict[str, FailureKind] = {  # a failed model call's LLMError kind
    "timeout": "model_timeout",
    "connection": "model_unreachable",
    "bad_request": "model_bad_request",
    "auth": "model_refused",
    "rate_limited": "model_refused",
    "unreadable_reply": "unreadable_reply",
}
STOPS: tuple[tuple[str, FailureKind], ...] = (  # a policy's stop reason, by its start
    ("action_limit", "step_limit"),
    ("step limit", "step_limit"),
    ("no_actions", "unreadable_reply"),
    ("restart_limit", "invalid_action"),
    ("plan_executed", "goal_not_reached"),
    ("solver error", "pddl_error"),
    ("simulation error", "invalid_action"),
)


def plays(player: str, family: Family) -> bool:
    """Whether ``player`` (a reference player's name, or any model) plays ``family``:
    random has no admissible actions to draw from in nl-pddl; the replanner plays the
    contingent family alone."""
    if player == "random":
        return family.base != "nl-pddl"
    if player == "replanner":
        return family.name == "contingent"
    return True


def make_env(family: Family, unit: Unit) -> gym.Env:
    """The environment of ``unit`` (not for nl-pddl), truncated after the family's
    ``max_steps`` and, for an obfuscated family, under made-up names."""
    assert unit.env is not None  # nl-pddl plays no environment
    options: dict[str, Any] = dict(unit.options)
    env = gym.make(unit.env, max_episode_steps=family.max_steps, **options)
    if not family.obfuscated:
        return env
    if family.base == "blocksworld":
        return ObfuscateNames(env, style="words", seed=OBFUSCATION_SEED, objects=True)
    return RenameWords(env, seed=OBFUSCATION_SEED, predicates=family.base == "contingent")


def make_policy(
    family: Family, env: gym.Env, player: ChatModel | str, seed: int = 0
) -> tuple[Policy, gym.Env]:
    """(the policy, the environment it plays through) for ``player``: a reference
    player's name (random drawing from ``seed``, the episode's), or a model playing the
    family's policy."""
    if player == "oracle":
        rename = env.rename if isinstance(env, RenameWords) else None
        return OraclePolicy(env, rename), env
    if player == "random":
        return RandomPolicy(seed=seed), env
    if player == "replanner":
        return ContingentReplanner(), env
    assert not isinstance(player, str)
    if family.policy == "closed-loop":
        policy = ClosedLoopPolicy(
            player, horizon=None, max_actions=family.max_steps, max_restarts=CLOSED_LOOP_RESTARTS
        )
        return policy, env
    if family.policy == "plangen":
        return PlanGenPolicy(player), env
    spec = env.spec
    assert spec is not None and family.policy == "pddlego"
    catalog = entry(spec.id)
    assert catalog is not None
    config = PDDLegoConfig(max_steps=family.max_steps).for_env(spec.id, catalog.family)
    if config.coin in TAKE_RULES and catalog.family == "coin":
        env = AutoTakeCoin(env, when=TAKE_RULES[config.coin])
    return pddlego_policy(env, player, config, None), env


def judge(
    episode: Episode, exhausted: bool, env: gym.Env | None = None
) -> tuple[FailureKind | None, str]:
    """(the failure kind, its detail) of an episode (None, "" when won): the call limit
    (``exhausted``), a failed model call by its kind, the step limit, the policy's stop
    reason; a game the environment ended without a win is ``lost``; a policy that
    stopped for none of these ``gave_up``. An episode past its step limit whose commands
    were refused at least half the time is ``invalid_action``."""
    if episode.won:
        return None, ""
    refused = sum(error is not None for error in episode.errors)
    details: Mapping = episode.details
    stop = str(details.get("stop") or "")
    if exhausted:
        return "call_limit", _short(episode.error or "call limit")
    if episode.error is not None:
        kind = ERROR_KINDS.get(episode.error_kind or "", "model_error")
        return kind, _short(episode.error)
    if episode.truncated:
        if episode.steps and 2 * refused >= episode.steps:
            return "invalid_action", f"{refused} of {episode.steps} commands refused"
        return "step_limit", f"{episode.steps} steps"
    for start, kind in STOPS:
        if stop.startswith(start):
            return kind, _short(stop)
    if episode.gave_up or stop:
        if refused:
            return "invalid_action", _short(stop or f"{refused} commands refused")
        return "gave_up", _short(stop or "the policy stopped")
    return "lost", f"the game ended after {episode.steps} steps"


def _short(text: str) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= DETAIL else line[: DETAIL - 3] + "..."
