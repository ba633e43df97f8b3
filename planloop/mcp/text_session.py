"""A text environment behind the engine session's operations.

The state is the environment's latest observation, the applicable actions are its
admissible commands, and a plan is a list of commands replayed in a fresh copy of the
environment. Answers have the shapes :class:`~planloop.envs.session.EngineSession`
gives, ``error`` included.
"""

from __future__ import annotations

import gymnasium as gym

from ..envs.feedback import action_failure
from .sandbox import excerpt, ground_actions


class TextSession:
    """One episode of ``env_id`` (made with ``env_kwargs``, reset with ``seed`` and
    ``options``); a reset or a plan check starts the same instance again."""

    def __init__(
        self,
        env_id: str,
        env_kwargs: dict | None = None,
        seed: int | None = None,
        options: dict | None = None,
    ):
        self.env_id, self.env_kwargs = env_id, dict(env_kwargs or {})
        self._seed, self._options = seed, dict(options or {})
        self.env: gym.Env | None = None
        self.obs, self.over = "", False
        self.info: dict = {}
        self._history: list[str] = []

    def start(self) -> dict:
        self.env = gym.make(self.env_id, **self.env_kwargs)
        self.reset()
        # pin the instance a seed (or none) drew, so that every reset plays it again
        self._options["instance"] = self.info["instance"]
        return {
            "started": True,
            "goal": self.info["task"],
            "instance": self.info["instance"],
            **self.state(),
        }

    def close(self) -> None:
        if self.env is not None:
            self.env.close()

    def ground_actions(self) -> int:
        """The largest possible size of the environment's contingent task (0: none)."""
        task = getattr(self._started().unwrapped, "contingent", None)
        return 0 if task is None else ground_actions(task.domain, task.problem)

    def state(self) -> dict:
        return {"observation": self.obs, "goal_reached": bool(self.info["won"])}

    def applicable_actions(self) -> dict:
        return {"actions": list(self.info["admissible_actions"])}

    def execute(self, action: str) -> dict:
        if self.over:
            return _failure("episode_over", "The episode is over; call reset to play again.")
        obs, _, terminated, truncated, info = self._started().step(action)
        self.info, self.over = info, terminated or truncated
        error = action_failure(info)
        if error is not None:
            return _failure(error["kind"], _said(error), error["unmet"])
        self.obs = obs
        self._history.append(action)
        return {"executed": True, **self.state()}

    def _started(self) -> gym.Env:
        """``self.env``, once :meth:`start` has made it."""
        if self.env is None:
            raise RuntimeError("call start() first")
        return self.env

    def reset(self) -> dict:
        self.obs, self.info = self._started().reset(seed=self._seed, options=self._options)
        self.over, self._history = False, []
        return {"reset": True, **self.state()}

    def history(self) -> dict:
        return {"actions": list(self._history)}

    def validate_plan(self, plan: str | list[str]) -> dict:
        steps = plan.splitlines() if isinstance(plan, str) else list(plan)
        steps = [step.strip() for step in steps if step.strip()]
        env = gym.make(self.env_id, **self.env_kwargs)
        try:
            _, info = env.reset(seed=self._seed, options=self._options)
            for number, command in enumerate(steps, 1):
                _, _, terminated, truncated, info = env.step(command)
                error = action_failure(info)
                if error is not None:
                    kind = "precondition" if error["kind"] == "inapplicable" else "bad_action"
                    return _verdict(
                        False,
                        kind,
                        number,
                        f"{excerpt(command)} at step {number}: " + _said(error, with_unmet=True),
                    )
                if (terminated or truncated) and number < len(steps):
                    return _verdict(
                        False, "episode_over", number + 1, f"The episode ended after step {number}."
                    )
        finally:
            env.close()
        if not info["won"]:
            return _verdict(False, "goal", None, "The goal is not satisfied")
        return _verdict(True, None, None, "Plan valid")


def _said(error: dict, with_unmet: bool = False) -> str:
    """An ``action_error`` in words: the environment's message (and its cause)."""
    text = error["message"] + (f" ({error['cause']})" if error.get("cause") else "")
    if with_unmet and error["unmet"]:
        text += " Unmet: " + ", ".join(error["unmet"])
    return text


def _failure(kind: str, message: str, unmet=()) -> dict:
    return {"executed": False, "error": kind, "message": message, "unmet": list(unmet)}


def _verdict(valid: bool, failure: str | None, step: int | None, advice: str) -> dict:
    return {"valid": valid, "failure": failure, "failed_step": step, "advice": advice}
