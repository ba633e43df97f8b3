"""Tell the agent after each step whether its action brought the goal closer."""

from __future__ import annotations

import math

import gymnasium as gym
from gymnasium import spaces

from ..envs.pddl_env import PDDLEnv, check_goal_distance
from ..envs.text_space import ObservationText

MAX_SENTENCE = 100  # characters the sentence adds at most (distances of up to 25 digits)


class ProgressFeedback(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Append one sentence to each observation, and put it in ``info["progress"]``:
    after a reset the goal's distance, after a step whether the goal is closer, no
    closer or further (``Progress: the goal is closer (distance 5 -> 4).``).

    The distance is the environment's relaxed-plan estimate (:meth:`PDDLEnv.distance`,
    ``heuristic`` ``"ff"`` or ``"add"``), so fully observable environments only; the
    observation space grows by :data:`MAX_SENTENCE` characters.
    """

    def __init__(self, env: gym.Env, heuristic: str = "ff"):
        gym.utils.RecordConstructorArgs.__init__(self, heuristic=heuristic)
        gym.Wrapper.__init__(self, env)
        if not isinstance(env.unwrapped, PDDLEnv):
            raise TypeError(
                f"ProgressFeedback needs a fully observable planloop environment "
                f"(a PDDLEnv), not {type(env.unwrapped).__name__}"
            )
        check_goal_distance(heuristic)
        self.heuristic = heuristic
        self._base: PDDLEnv = env.unwrapped
        space = env.observation_space
        if not isinstance(space, spaces.Text):
            raise TypeError(f"ProgressFeedback needs a text observation space, not {space}")
        self.observation_space = ObservationText(
            max_length=space.max_length + MAX_SENTENCE, charset=space.character_set
        )
        self._distance = math.inf

    def _measure(self, info: dict) -> float:
        """The distance now: the environment's ``goal_distance`` when it measures the
        same one, else computed."""
        if self._base.goal_distance == self.heuristic:
            return info["goal_distance"]
        return self._base.distance(self.heuristic)

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        self._distance = self._measure(info)
        return self._tell(
            obs, info, f"Progress: the distance to the goal is {_shown(self._distance)}."
        )

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        before, after = self._distance, self._measure(info)
        self._distance = after
        change = "closer" if after < before else "further" if after > before else "no closer"
        obs, info = self._tell(
            obs,
            info,
            f"Progress: the goal is {change} (distance {_shown(before)} -> {_shown(after)}).",
        )
        return obs, reward, terminated, truncated, info

    @staticmethod
    def _tell(obs: str, info: dict, sentence: str) -> tuple[str, dict]:
        return f"{obs}\n{sentence}", dict(info, progress=sentence)


def _shown(distance: float) -> str:
    return "infinite" if distance == math.inf else f"{distance:.0f}"
