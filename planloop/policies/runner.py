"""``run_episode(env, policy)``: the one loop every experiment uses, and its record."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

from ..envs.feedback import action_failure
from ..llm import LLMError, LLMErrorKind, Usage
from .base import GIVE_UP, RESTART, MinimalPolicy, as_policy


@dataclass(frozen=True)
class Episode:
    """Everything a paper needs about one episode."""

    env_id: str
    instance: int | None
    seed: int | None
    policy: str
    model: str | None
    prompt_version: str | None
    won: bool
    steps: int
    restarts: int
    truncated: bool
    gave_up: bool
    actions: tuple[str, ...]
    observations: tuple[str, ...]
    errors: tuple[dict | None, ...]  # each step's action_error, None if it did not fail
    usage: Usage = field(default_factory=Usage)
    seconds: float = 0.0
    error: str | None = None  # a model call that failed for good
    error_kind: LLMErrorKind | None = None  # and its kind (LLMError.kind)
    details: dict = field(default_factory=dict)  # the policy's own record (why it stopped, ...)
    restarted_after: tuple[int, ...] = ()  # per restart, the actions taken before it

    def to_json(self) -> dict:
        return asdict(self)


def run_episode(
    env,
    policy: MinimalPolicy,
    seed: int | None = None,
    options: dict | None = None,
    max_steps: int | None = None,
) -> Episode:
    """Play one episode of ``env`` with ``policy`` and record it.

    ``RESTART`` from the policy resets the same instance (counted in ``restarts``);
    ``GIVE_UP`` ends the episode; the policy's ``finish(obs, info)`` is shown the last
    observation when the episode ends. A policy that keeps only part of :class:`Policy`
    (``reset`` and ``act``, say) gets the defaults of the rest. A failing model call
    (LLMError, in the policy's ``reset`` or ``act``) ends it too, and is recorded, never
    raised. ``max_steps`` caps environment steps across restarts.

    An episode whose goal holds at reset (``info["won"]`` true there: the environment
    ended it) ends at once, won with 0 steps: the policy is not asked to play (no
    ``reset``, ``act`` or ``finish``; no model call, empty ``details``).
    """
    start = time.monotonic()
    player = as_policy(policy)
    usage_before = player.usage
    obs, info = env.reset(seed=seed, options=options)
    instance = info.get("instance")
    actions: list[str] = []
    observations, errors, restarted_after = [obs], [], []
    restarts, truncated, gave_up = 0, False, False
    won = ended = bool(info.get("won"))  # the goal held at reset: the episode ended there
    failure: LLMError | None = None
    if not ended:
        try:
            player.reset(obs, info)
        except LLMError as exc:
            failure = exc
    while not ended and failure is None and (max_steps is None or len(actions) < max_steps):
        try:
            action = player.act(obs, info)
        except LLMError as exc:
            failure = exc
            break
        if action is GIVE_UP:
            gave_up = True
            break
        if action is RESTART:
            restarts += 1
            restarted_after.append(len(actions))
            obs, info = env.reset(
                options={"instance": instance} if instance is not None else options
            )
            observations.append(obs)
            won = bool(info.get("won"))
            if won:  # the goal holds at this reset too: the episode ended there
                break
            continue
        obs, _, terminated, truncated, info = env.step(action)
        actions.append(action)
        observations.append(obs)
        errors.append(action_failure(info))
        won = bool(info.get("won"))
        if terminated or truncated:
            break
    else:  # out of steps, unless the policy's reset already failed or the goal held
        truncated = failure is None and not ended
    if failure is None and not ended:
        player.finish(obs, info)
    spent = player.usage - usage_before
    return Episode(
        env_id=getattr(getattr(env, "spec", None), "id", None) or type(env.unwrapped).__name__,
        instance=instance,
        seed=seed,
        policy=player.name,
        model=player.model_name,
        prompt_version=player.prompt_version,
        won=won,
        steps=len(actions),
        restarts=restarts,
        truncated=truncated and not won,
        gave_up=gave_up,
        actions=tuple(actions),
        observations=tuple(observations),
        errors=tuple(errors),
        usage=spent,
        seconds=time.monotonic() - start,
        error=None if failure is None else str(failure),
        error_kind=None if failure is None else failure.kind,
        details={} if ended else dict(player.details),
        restarted_after=tuple(restarted_after),
    )
