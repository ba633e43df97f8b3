"""CoinCollector as PDDLego+'s harness plays it: the coin is taken the moment it is seen,
and the agent is offered only moves and doors."""

from __future__ import annotations

import gymnasium as gym

TAKE = "take coin"
NOT_OFFERED = ("look around", "inventory", TAKE)


class AutoTakeCoin(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """After a step that shows the coin (``take coin`` becomes admissible), takes it in
    the same step: the observation is the step's, then ``> take coin`` and the game's
    answer; reward adds up, and termination and ``info`` are the take's (``won`` is
    True). A coin already in view at reset is taken at the first step, in place of the
    agent's command. ``admissible_actions`` leaves out ``look around``, ``inventory``
    and ``take coin``."""

    def __init__(self, env: gym.Env):
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.Wrapper.__init__(self, env)
        self._in_view = False

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        self._in_view = TAKE in (info.get("admissible_actions") or ())
        return obs, self._offered(info)

    def step(self, action):
        if self._in_view:
            self._in_view = False
            taken, reward, terminated, truncated, info = self.env.step(TAKE)
            return f"> {TAKE}\n{taken}", reward, terminated, truncated, self._offered(info)
        obs, reward, terminated, truncated, info = self.env.step(action)
        if TAKE in (info.get("admissible_actions") or ()) and not (terminated or truncated):
            taken, more, terminated, truncated, info = self.env.step(TAKE)
            obs, reward = f"{obs}\n> {TAKE}\n{taken}", float(reward) + float(more)
        return obs, reward, terminated, truncated, self._offered(info)

    @staticmethod
    def _offered(info: dict) -> dict:
        if "admissible_actions" not in info:
            return info
        return {
            **info,
            "admissible_actions": [a for a in info["admissible_actions"] if a not in NOT_OFFERED],
        }
