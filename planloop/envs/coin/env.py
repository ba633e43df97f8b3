"""``CoinCollector-v0``: TextWorld Express's ``coin`` game, natively."""

from __future__ import annotations

from typing import Any

from ..arguments import integer
from ..feedback import check_feedback, observation, slip_of
from ..info import CausedError, CoinInfo, FailureKind, caused_error, step_info
from ..text_env import MAX_OBS, Step, TextEnv
from . import text
from .causes import Refusal, command_cause, refusal
from .generate import check_house, generate_house
from .layout import House, load_layout
from .names import fact
from .shuffle import EpisodeShuffle
from .symbolic import DOMAIN, plan_commands, problem_text, true_facts
from .vocab import DIRECTION_VERBS, DIRECTIONS
from .world import World


class CoinCollectorEnv(TextEnv[CoinInfo]):
    """Find the coin in a house and take it.

    Either a seeded house of ``num_locations`` rooms (``reset(seed=...)`` picks it), or
    with ``layout`` (a TextWorld Express transcript path, its JSON or its ``map``) exactly
    that recorded house, where the same commands print what TextWorld Express printed,
    valid-action order included. ``fold`` (train/dev/test) picks the distractor
    vocabulary of generated houses. ``info`` (a :class:`~..info.CoinInfo`) carries
    ``admissible_actions``, ``task``, ``won``, ``feedback``, ``action_error``, ``score``,
    ``moves``, ``look``, ``inventory`` and ``instance``: the seed of the generated house
    (0 for a layout), which ``reset(options={"instance": i})`` builds again. An
    ``action_error`` has a ``cause`` in words (see ``causes``), which
    ``feedback="detailed"`` appends to the game's text in the observation (``"game"``,
    the default: the game's text alone, as TextWorld Express prints it). The hidden
    world is ``world_pddl()``; ``observed_facts()``, ``gold_path()`` and
    ``plan_commands()`` serve evaluators and reference policies.
    """

    def __init__(
        self,
        num_locations: int = 5,
        include_doors: bool = True,
        num_distractor_items: int = 0,
        fold: str = "train",
        layout=None,
        feedback: str = "game",
        render_mode: str | None = None,
        max_obs_length: int = MAX_OBS,
    ):
        super().__init__(render_mode, max_obs_length)
        self.feedback = check_feedback(feedback)
        self.params: dict[str, Any] = dict(
            num_locations=num_locations,
            include_doors=include_doors,
            num_distractor_items=num_distractor_items,
            fold=fold,
        )
        check_house(**self.params)
        self.layout: House | None = None if layout is None else load_layout(layout)
        self.world: World | None = None
        self.instance: int | None = None
        self._info: CoinInfo

    # -- gymnasium API ----------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed, options=options)
        self.instance = self._house_instance(seed, options)
        house = (
            self.layout
            if self.layout is not None
            else generate_house(**self.params, seed=self.instance)
        )
        self.world = World(house)
        self._random = EpisodeShuffle()
        self._valid = self._random.shuffle(list(self.world.view.actions))
        self.moves = 0
        obs = self._emit(self.world, self.world.view.description, caused_error())
        return self._begin(obs, self._info)

    def _step(self, action: str) -> Step[CoinInfo]:
        world = self.world
        if world is None:
            raise RuntimeError("call reset() before step()")
        if action == "help":  # TextWorld Express's wrapper answers it; the game never sees it
            return self._emit(world, text.TASK, caused_error()), 0.0, False, False, self._info
        command = action.strip()
        before = world.score
        self.moves += 1
        if command in world.view.commands:
            obs, refused = world.execute(command)
            error = caused_error() if refused is None else refused_error("inapplicable", refused)
            self._valid = self._random.shuffle(list(world.view.actions))
        else:
            obs, error = text.UNKNOWN, self._invalid(command)
        obs = self._emit(world, obs, error)
        return obs, world.score - before, world.score >= 1, False, self._info

    # -- ground truth for evaluators --------------------------------------------------
    def world_pddl(self) -> tuple[str, str]:
        """The hidden world now: (domain text, problem text)."""
        return DOMAIN, problem_text(self._started())

    def observed_facts(self) -> list[str]:
        """The true facts the game's texts have shown the player so far."""
        return true_facts(self._started(), observed_only=True)

    def gold_path(self) -> list[str] | None:
        """A shortest winning command list from now; None if the game cannot be won."""
        return self._started().gold_path()

    def plan_commands(self, plan) -> list[str]:
        """A plan for ``world_pddl()`` as game commands."""
        return plan_commands(self._started(), plan)

    # -- helpers ----------------------------------------------------------------------
    def _started(self) -> World:
        if self.world is None:
            raise RuntimeError("call reset() first")
        return self.world

    def _house_instance(self, seed: int | None, options: dict | None) -> int:
        """The house's seed (see ``_seeded_instance``); a layout is the one house 0."""
        if self.layout is None:
            return self._seeded_instance(seed, options)
        if options and "instance" in options:
            return integer("instance", options["instance"], 0, 0)
        return 0

    def _invalid(self, command: str) -> CausedError:
        """Why a command is not valid now: a case or spacing slip of a valid command is
        malformed; a move, door or take command naming a direction or an item of this
        house is inapplicable; anything else is unknown."""
        world = self._started()
        verb, _, target = command.rpartition(" ")
        kind: FailureKind = "unknown"
        if slip_of(command, self._valid) is not None:
            kind = "malformed"
        elif verb in DIRECTION_VERBS and target in DIRECTIONS:
            kind = "inapplicable"
        elif command.startswith("take ") and command[5:] in world.items:
            unmet = (fact("in-room", command[5:], world.room),)
            room = world.house.room(world.room)
            return refused_error("inapplicable", refusal(room, command, text.UNKNOWN, unmet))
        cause = command_cause(command, self._valid, f"the {world.room}")
        return refused_error(kind, Refusal(text.UNKNOWN, (), cause))

    def _emit(self, world: World, obs: str, error: CausedError) -> str:
        self._info = step_info(
            CoinInfo,
            list(self._valid),
            text.TASK,
            world.score >= 1,
            obs,
            error,
            {
                "score": world.score,
                "moves": self.moves,
                "look": world.view.description,
                "inventory": world.inventory_text,
                "instance": self.instance,
            },
        )
        return self._show(observation(self.feedback, obs, error))


def refused_error(kind: FailureKind, refused: Refusal) -> CausedError:
    """The ``action_error`` of a command refused as ``kind``."""
    return caused_error(kind, refused.message, refused.unmet, refused.cause)
