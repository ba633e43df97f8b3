"""The one step interface every policy speaks, its two sentinels, and what the runner
reads of a policy beyond ``reset`` and ``act``, with its defaults."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

from ..llm import Usage


class _Sentinel(str):
    """A command that is not an action but a request to the runner."""


RESTART = _Sentinel("<restart>")  # start the same instance again (closed-loop replanning)
GIVE_UP = _Sentinel("<give up>")  # end the episode now (e.g. the policy found no plan)


class MinimalPolicy(Protocol):
    """The least a policy does: start an episode, then pick each action (or a sentinel)."""

    def reset(self, obs: str, info: dict) -> None: ...

    def act(self, obs: str, info: dict) -> str: ...


@runtime_checkable
class Policy(MinimalPolicy, Protocol):
    """Everything the runner reads of a policy. :class:`PolicyBase` holds the defaults;
    the runner adapts a policy that keeps only part of it with :func:`as_policy`."""

    @property
    def name(self) -> str: ...

    @property
    def model_name(self) -> str | None: ...

    @property
    def prompt_version(self) -> str | None: ...

    @property
    def usage(self) -> Usage: ...  # the model calls so far (the runner takes the difference)

    @property
    def details(self) -> Mapping[str, Any]: ...  # the policy's own record of the episode

    def finish(self, obs: str, info: dict) -> None: ...  # the last observation, at the end


class PolicyBase:
    """The defaults of :class:`Policy`, for a policy to inherit: no model, no model calls,
    no details, nothing to do when the episode ends."""

    name: str
    model_name: str | None = None
    prompt_version: str | None = None
    usage: Usage = Usage()
    details: Mapping[str, Any] = MappingProxyType({})

    def finish(self, obs: str, info: dict) -> None:
        """Called by the runner with the last observation when the episode ends (unless a
        model call failed), so a policy can judge its last action."""


class PolicyAdapter:
    """A policy that keeps only part of :class:`Policy`, with :class:`PolicyBase`'s
    defaults for the rest (and its class name for a missing ``name``), read live."""

    def __init__(self, policy: MinimalPolicy):
        self.policy = policy

    def reset(self, obs: str, info: dict) -> None:
        self.policy.reset(obs, info)

    def act(self, obs: str, info: dict) -> str:
        return self.policy.act(obs, info)

    @property
    def name(self) -> str:
        return getattr(self.policy, "name", type(self.policy).__name__)

    @property
    def model_name(self) -> str | None:
        return getattr(self.policy, "model_name", PolicyBase.model_name)

    @property
    def prompt_version(self) -> str | None:
        return getattr(self.policy, "prompt_version", PolicyBase.prompt_version)

    @property
    def usage(self) -> Usage:
        return getattr(self.policy, "usage", PolicyBase.usage)

    @property
    def details(self) -> Mapping[str, Any]:
        return getattr(self.policy, "details", PolicyBase.details)

    def finish(self, obs: str, info: dict) -> None:
        finish = getattr(self.policy, "finish", None)
        if finish is not None:
            finish(obs, info)


def as_policy(policy: MinimalPolicy) -> Policy:
    """``policy`` itself when it keeps all of :class:`Policy`, else adapted."""
    return policy if isinstance(policy, Policy) else PolicyAdapter(policy)
