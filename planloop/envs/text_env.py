"""The base of planloop's environments: text observations and actions, shown as text."""

from __future__ import annotations

import string
from typing import TYPE_CHECKING

import gymnasium as gym
from gymnasium import spaces

from .arguments import MAX_SEED, check_reset, choice, integer
from .text_space import ObservationText

MAX_OBS = 2**15  # characters; the shipped games print at most ~900 (measured, see README)
MAX_OBS_LIMIT = 2**24  # the largest max_obs_length (vector envs batch observations in memory)
MAX_COMMAND = 10_000  # a command is a line


class TextEnv(gym.Env):
    """Text spaces, ``render_mode`` ``ansi`` (returns the last observation) or ``human``
    (prints each one). Subclasses pass each observation through ``_show``.

    Observations hold at most ``max_obs_length`` characters, so that vector envs can
    batch them in shared memory; a longer one is a ValueError, never cut short."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}
    observation_space: spaces.Text
    action_space: spaces.Text

    if TYPE_CHECKING:  # for the type checker only: not every subclass has instances to count

        @property
        def num_instances(self) -> int:
            """How many instances ``options["instance"]`` chooses from (0 to this - 1)."""
            ...

    def __init__(self, render_mode: str | None = None, max_obs_length: int = MAX_OBS):
        self.render_mode = choice(
            "render_mode", render_mode, self.metadata["render_modes"], optional=True
        )
        integer("max_obs_length", max_obs_length, 1, MAX_OBS_LIMIT)
        self.observation_space = ObservationText(
            max_length=max_obs_length, charset=string.printable
        )
        self.action_space = spaces.Text(max_length=MAX_COMMAND, charset=string.printable)
        self._last_obs = ""

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Check ``seed`` and ``options`` (see :func:`~.arguments.check_reset`), then
        seed ``np_random``; subclasses build the episode."""
        check_reset(seed, options)
        super().reset(seed=seed)

    def _choose_instance(self, options: dict | None) -> int:
        """``options["instance"]`` if given, else one drawn from the seed among the
        subclass's ``num_instances``."""
        if options and "instance" in options:
            return self._check_instance(options["instance"])
        return int(self.np_random.integers(self.num_instances))

    def _seeded_instance(self, seed: int | None, options: dict | None) -> int:
        """For worlds generated from a seed, the seed is the instance (0 to
        :data:`~.arguments.MAX_SEED`): ``options["instance"]``, else the reset seed,
        else one drawn from the seed."""
        if options and "instance" in options:
            return integer("instance", options["instance"], 0, MAX_SEED)
        if seed is not None:
            return integer("seed", seed, 0, MAX_SEED)
        return int(self.np_random.integers(MAX_SEED + 1))

    def _check_instance(self, index) -> int:
        """``index`` if it is an instance (0 to ``num_instances - 1``)."""
        return integer("instance", index, 0, self.num_instances - 1)

    @staticmethod
    def _command(action) -> str:
        """The command ``action`` names. Actions are text: any ``str`` (numpy's
        ``str_`` included); anything else is a TypeError, never a guess."""
        if not isinstance(action, str):
            raise TypeError(
                f"an action is a command string, not {type(action).__name__}: {action!r:.80}"
            )
        return action

    def _show(self, obs: str) -> str:
        limit = self.observation_space.max_length
        if len(obs) > limit:
            raise ValueError(
                f"the observation has {len(obs)} characters, more than the "
                f"observation space's max_length={limit}; make the environment "
                f"with a larger max_obs_length="
            )
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
