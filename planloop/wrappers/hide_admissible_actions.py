"""Take ``admissible_actions`` out of ``info``: the agent must find its own actions."""

from __future__ import annotations

import gymnasium as gym


class HideAdmissibleActions(gym.Wrapper, gym.utils.RecordConstructorArgs):
    def __init__(self, env: gym.Env):
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.Wrapper.__init__(self, env)

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        return obs, self._hide(info)

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, reward, terminated, truncated, self._hide(info)

    @staticmethod
    def _hide(info: dict) -> dict:
        return {k: v for k, v in info.items() if k != "admissible_actions"}
