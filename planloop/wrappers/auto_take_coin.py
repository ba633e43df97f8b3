"""CoinCollector as PDDLego+'s harness plays it: the coin is taken for the agent, and the
agent is offered only moves and doors."""

from __future__ import annotations

import gymnasium as gym

TAKE = "take coin"
NOT_OFFERED = ("look around", "inventory", TAKE)
RULES = ("in_view", "shown")


class AutoTakeCoin(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Takes the coin for the agent, by one of two rules (``when``):

    - ``"in_view"`` (the default): after a step that shows the coin (``take coin``
      becomes admissible), and a coin already in view at reset at the first step, in
      place of the agent's command;
    - ``"shown"`` (PDDLego+'s authors' harness): only after a step whose text mentions
      the coin (``"coin"`` in the game's answer, ``info["feedback"]``); never at reset,
      so a coin in view at the start is taken only once a later step shows it again.

    The step's observation is then the step's, then ``> take coin`` and the game's
    answer; reward adds up, and termination and ``info`` are the take's (``won`` is True
    once the game took it). ``admissible_actions`` leaves out ``look around``,
    ``inventory`` and ``take coin``."""

    def __init__(self, env: gym.Env, when: str = "in_view"):
        if when not in RULES:
            raise ValueError(f"when must be one of {', '.join(RULES)}, not {when!r:.80}")
        gym.utils.RecordConstructorArgs.__init__(self, when=when)
        gym.Wrapper.__init__(self, env)
        self.when = when
        self._in_view = False

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        self._in_view = self.when == "in_view" and TAKE in (info.get("admissible_actions") or ())
        return obs, self._offered(info)

    def step(self, action):
        if self._in_view:
            self._in_view = False
            taken, reward, terminated, truncated, info = self.env.step(TAKE)
            return f"> {TAKE}\n{taken}", reward, terminated, truncated, self._offered(info)
        obs, reward, terminated, truncated, info = self.env.step(action)
        if self._shows_coin(obs, info) and not (terminated or truncated):
            taken, more, terminated, truncated, info = self.env.step(TAKE)
            obs, reward = f"{obs}\n> {TAKE}\n{taken}", float(reward) + float(more)
        return obs, reward, terminated, truncated, self._offered(info)

    def _shows_coin(self, obs: str, info: dict) -> bool:
        if self.when == "in_view":
            return TAKE in (info.get("admissible_actions") or ())
        return "coin" in str(info.get("feedback", obs))

    @staticmethod
    def _offered(info: dict) -> dict:
        if "admissible_actions" not in info:
            return info
        return {
            **info,
            "admissible_actions": [a for a in info["admissible_actions"] if a not in NOT_OFFERED],
        }
