"""The base of planloop's environments: text observations and actions, shown as text."""

from __future__ import annotations

import string
from typing import TYPE_CHECKING, Any, Generic

import gymnasium as gym
from gymnasium import spaces

from .arguments import MAX_SEED, RESET_OPTIONS, check_reset, integer
from .info import EPISODE_OVER, InfoT, episode_over
from .text_space import ObservationText

MAX_OBS = 2**15  # characters; the shipped games print at most ~900 (measured: docs/environments/)
MAX_OBS_LIMIT = 2**24  # the largest max_obs_length (vector envs batch observations in memory)
MAX_COMMAND = 10_000  # a command is a line
METADATA: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 4}
Step = tuple[str, float, bool, bool, InfoT]  # obs, reward, terminated, truncated, info


class TextEnv(gym.Env, Generic[InfoT]):
    """Text spaces, ``render_mode`` ``ansi`` (returns the last observation) or ``human``
    (prints each one); any other is a ValueError. Subclasses play a step in ``_step``
    and pass each observation through ``_show``; ``InfoT`` is the family of their ``info``
    (see :mod:`.info`).

    Once a step has terminated the episode, a step does nothing and pays nothing:
    ``terminated`` stays true and ``info`` is that last step's, with ``feedback`` and an
    ``action_error`` of kind ``episode_over`` saying so (the same keys, so that vector envs
    can merge it). An episode whose goal holds from the start ends at reset: its
    ``info["won"]`` is true and a step after it is a step after the end (the reset's
    ``info`` is the last step's); subclasses return their reset through :meth:`_begin`.

    Observations hold at most ``max_obs_length`` characters, so that vector envs can
    batch them in shared memory; a longer one is a ValueError, never cut short."""

    observation_space: spaces.Text
    action_space: spaces.Text
    reset_options: tuple[str, ...] = RESET_OPTIONS  # the options reset() takes

    if TYPE_CHECKING:  # for the type checker only: not every subclass has instances to count

        @property
        def num_instances(self) -> int:
            """How many instances ``options["instance"]`` chooses from (0 to this - 1)."""
            ...

    @property
    def metadata(self) -> dict[str, Any]:  # type: ignore[override]
        """:data:`METADATA`. A property, as on gymnasium's wrappers, so that ``gym.make``
        hands any ``render_mode`` to the constructor (it calls ``.endswith`` on a mode a
        class's metadata lacks: an AttributeError for ``render_mode=1``)."""
        return METADATA

    def __init__(self, render_mode: str | None = None, max_obs_length: int = MAX_OBS):
        modes = self.metadata["render_modes"]
        if render_mode is not None and not (isinstance(render_mode, str) and render_mode in modes):
            raise ValueError(
                f"render_mode must be one of {', '.join(modes)} or None, not {render_mode!r:.80}"
            )
        self.render_mode = render_mode
        integer("max_obs_length", max_obs_length, 1, MAX_OBS_LIMIT)
        self.observation_space = ObservationText(
            max_length=max_obs_length, charset=string.printable
        )
        self.action_space = spaces.Text(max_length=MAX_COMMAND, charset=string.printable)
        self._last_obs = ""
        self._final: InfoT | None = None  # the info of the step that ended the episode

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Check ``seed`` and ``options`` (see :func:`~.arguments.check_reset`), then
        seed ``np_random``; subclasses build the episode."""
        check_reset(seed, options, self.reset_options)
        super().reset(seed=seed)
        self._final = None

    def _begin(self, obs: str, info: InfoT) -> tuple[str, InfoT]:
        """A subclass's reset, returned: the episode ends there when its goal holds."""
        if info["won"]:
            self._final = info.copy()  # as returned, whatever the caller does to it
        return obs, info

    def step(self, action: str) -> Step[InfoT]:  # type: ignore[override]
        # (gymnasium declares info a dict[str, Any]; a TypedDict is a dict when run)
        command = self._command(action)
        if self._final is not None:
            return self._show(EPISODE_OVER), 0.0, True, False, episode_over(self._final)
        result = self._step(command)
        if result[2]:
            self._final = result[4].copy()  # as returned, whatever the caller does to it
        return result

    def _step(self, command: str) -> Step[InfoT]:
        """Play ``command`` (the episode is not over)."""
        raise NotImplementedError

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
