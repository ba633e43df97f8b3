"""The base of planloop's environments: text observations and actions, shown as text."""

from __future__ import annotations

import string

import gymnasium as gym
from gymnasium import spaces

from .text_space import ObservationText

MAX_OBS = 2**15  # characters; the shipped games print at most ~900 (measured, see README)
MAX_COMMAND = 10_000  # a command is a line


class TextEnv(gym.Env):
    """Text spaces, ``render_mode`` ``ansi`` (returns the last observation) or ``human``
    (prints each one). Subclasses pass each observation through ``_show``.

    Observations hold at most ``max_obs_length`` characters, so that vector envs can
    batch them in shared memory; a longer one is a ValueError, never cut short."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(self, render_mode: str | None = None, max_obs_length: int = MAX_OBS):
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.observation_space = ObservationText(max_length=max_obs_length,
                                                 charset=string.printable)
        self.action_space = spaces.Text(max_length=MAX_COMMAND, charset=string.printable)
        self._last_obs = ""

    def _choose_instance(self, options: dict | None) -> int:
        """``options["instance"]`` if given (``load_instance`` checks it), else one drawn
        from the seed among the subclass's ``num_instances``."""
        if options and "instance" in options:
            return int(options["instance"])
        return int(self.np_random.integers(self.num_instances))

    def _seeded_instance(self, seed: int | None, options: dict | None) -> int:
        """For worlds generated from a seed, the seed is the instance:
        ``options["instance"]``, else the reset seed, else one drawn from the seed."""
        if options and "instance" in options:
            return int(options["instance"])
        return seed if seed is not None else int(self.np_random.integers(2**31))

    def _check_instance(self, index: int) -> None:
        if not 0 <= index < self.num_instances:
            raise IndexError(f"instance {index} out of range 0..{self.num_instances - 1}")

    @staticmethod
    def _command(action) -> str:
        """The command ``action`` names. Actions are text: any ``str`` (numpy's
        ``str_`` included); anything else is a TypeError, never a guess."""
        if not isinstance(action, str):
            raise TypeError(f"an action is a command string, not {type(action).__name__}: "
                            f"{action!r:.80}")
        return action

    def _show(self, obs: str) -> str:
        limit = self.observation_space.max_length
        if len(obs) > limit:
            raise ValueError(f"the observation has {len(obs)} characters, more than the "
                             f"observation space's max_length={limit}; make the environment "
                             f"with a larger max_obs_length=")
        self._last_obs = obs
        if self.render_mode == "human":
            print(obs)
        return obs

    def render(self):
        if self.render_mode == "ansi":
            return self._last_obs
        if self.render_mode == "human":
            print(self._last_obs)
        return None
