"""A Discrete action space over a PDDL environment's ground actions, with a mask."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..envs.pddl_env import PDDLEnv


class IndexActions(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Action ``i`` is the ``i``-th ground action of the current instance.

    ``info["action_mask"]`` (int8, one entry per index) marks the applicable ones;
    ``info["action_names"]`` names every index of the instance. ``max_actions``
    fixes the space's size; by default it is the largest instance's action count.
    """

    def __init__(self, env: gym.Env, max_actions: int | None = None):
        gym.utils.RecordConstructorArgs.__init__(self, max_actions=max_actions)
        gym.Wrapper.__init__(self, env)
        base = env.unwrapped
        if not isinstance(base, PDDLEnv):
            raise TypeError("IndexActions needs a PDDL environment (planloop PDDLEnv)")
        if max_actions is None:
            max_actions = max(len(base.load_instance(i).actions)
                              for i in range(base.num_instances))
        self.action_space = spaces.Discrete(max_actions)

    def _actions(self):
        return self.env.unwrapped.task.actions

    def _augment(self, info: dict) -> dict:
        base = self.env.unwrapped
        actions = self._actions()
        if len(actions) > self.action_space.n:
            raise ValueError(f"instance {base.instance} has {len(actions)} ground actions, "
                             f"more than max_actions={self.action_space.n}")
        mask = np.zeros(self.action_space.n, dtype=np.int8)
        for i, action in enumerate(actions):
            mask[i] = action.applicable(base.state)
        return dict(info, action_mask=mask, action_names=[base.view.command(a, base.task) for a in actions])

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        return obs, self._augment(info)

    def step(self, action):
        index = int(action)
        actions = self._actions()
        base = self.env.unwrapped
        command = base.view.command(actions[index], base.task) if 0 <= index < len(actions) \
            else f"(no-action-at-index-{index})"
        obs, reward, terminated, truncated, info = self.env.step(command)
        return obs, reward, terminated, truncated, self._augment(info)
