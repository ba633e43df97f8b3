"""A Discrete action space over a planloop environment's commands, with a mask."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..envs.pddl_env import PDDLEnv
from ..envs.text_env import TextEnv

# Text games' default max_actions: the generated and recorded games list at most 25
# admissible commands (ALFWorld; CoinCollector 14); a released ALFWorld room of 40
# receptacles has a go-to command for each.
MAX_COMMANDS = 256


class IndexActions(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Action ``i`` names a command; ``info["action_mask"]`` (int8, ``max_actions``
    entries) marks the valid indices and ``info["action_names"]`` names them.

    On a PDDL environment index ``i`` is the ``i``-th ground action of the instance, the
    mask marks the applicable ones and ``action_names`` names every ground action;
    ``max_actions`` defaults to the largest instance's action count. On a text game
    (CoinCollector, ALFWorld) index ``i`` is the ``i``-th admissible command of the
    current state, in the game's order; ``action_names`` lists them, padded with ``""``
    to ``max_actions`` (default :data:`MAX_COMMANDS`). A state with more than
    ``max_actions`` actions is a ValueError. An index with no command is played as an
    unknown command: the game answers it as it answers any invalid command.
    """

    def __init__(self, env: gym.Env, max_actions: int | None = None):
        gym.utils.RecordConstructorArgs.__init__(self, max_actions=max_actions)
        gym.Wrapper.__init__(self, env)
        base = env.unwrapped
        if not isinstance(base, TextEnv):
            raise TypeError("IndexActions needs a planloop environment")
        self._pddl = isinstance(base, PDDLEnv)
        self._base = base
        if max_actions is None:
            max_actions = (
                max(len(base.load_instance(i).actions) for i in range(base.num_instances))
                if isinstance(base, PDDLEnv)
                else MAX_COMMANDS
            )
        self.action_space = spaces.Discrete(max_actions)
        self._size = max_actions
        self._commands: list[str] = []  # the command of each index now

    def _augment(self, info: dict) -> dict:
        size = self._size
        if isinstance(base := self._base, PDDLEnv):  # self._pddl
            task = base.started()
            self._commands = [base.view.command(a, task) for a in task.actions]
            valid = [a.applicable(base.state) for a in task.actions]
            where = f"instance {base.instance} has {len(valid)} ground actions"
        elif "admissible_actions" in info:
            self._commands = list(info["admissible_actions"])
            valid = [True] * len(self._commands)
            where = f"this state has {len(valid)} admissible commands"
        else:
            raise ValueError("IndexActions on a text game needs info['admissible_actions']")
        if len(valid) > size:
            raise ValueError(f"{where}, more than max_actions={size}")
        mask = np.zeros(size, dtype=np.int8)
        mask[: len(valid)] = valid
        names = (
            self._commands if self._pddl else self._commands + [""] * (size - len(self._commands))
        )
        return dict(info, action_mask=mask, action_names=names)

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        return obs, self._augment(info)

    def step(self, action):
        index = int(action)
        command = (
            self._commands[index]
            if 0 <= index < len(self._commands)
            else f"(no-action-at-index-{index})"
        )
        obs, reward, terminated, truncated, info = self.env.step(command)
        return obs, reward, terminated, truncated, self._augment(info)
