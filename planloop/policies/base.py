"""The one step interface every policy speaks, and its two sentinels."""

from __future__ import annotations

from typing import Protocol


class _Sentinel(str):
    """A command that is not an action but a request to the runner."""


RESTART = _Sentinel("<restart>")  # start the same instance again (closed-loop replanning)
GIVE_UP = _Sentinel("<give up>")  # end the episode now (e.g. the policy found no plan)


class Policy(Protocol):
    name: str

    def reset(self, obs: str, info: dict) -> None: ...

    def act(self, obs: str, info: dict) -> str: ...

    # Optional: ``finish(obs, info)``, called by the runner with the last observation
    # when the episode ends (so a policy can judge its last action).
