"""Append every reset and step to a JSON-lines file, flushed as it happens."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym

_STEP_INFO = ("won", "feedback", "action_error", "admissible_actions", "task")


class RecordEpisode(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """One JSON object per line: ``{"episode", "step", "event", ...}``.

    A reset line holds the observation and the whole ``info``; a step line holds the
    action, observation, reward, termination flags and the step's ``info`` keys.
    """

    def __init__(self, env: gym.Env, path):
        gym.utils.RecordConstructorArgs.__init__(self, path=str(path))
        gym.Wrapper.__init__(self, env)
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.episode = -1
        self._step = 0

    def _write(self, record: dict) -> None:
        with self.path.open("a") as out:
            out.write(json.dumps(record, default=str) + "\n")

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        self.episode += 1
        self._step = 0
        self._write(
            {
                "episode": self.episode,
                "step": 0,
                "event": "reset",
                "observation": obs,
                "info": info,
                "seed": kwargs.get("seed"),
            }
        )
        return obs, info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._step += 1
        self._write(
            {
                "episode": self.episode,
                "step": self._step,
                "event": "step",
                "action": action.item() if hasattr(action, "item") else action,
                "observation": obs,
                "reward": reward,
                "terminated": terminated,
                "truncated": truncated,
                "info": {k: info[k] for k in _STEP_INFO if k in info},
            }
        )
        return obs, reward, terminated, truncated, info
