"""``CoinCollector-v0`` with ``backend="twx"``: the real TextWorld Express game (the
``textworld-express`` package, which runs a Java simulator), behind the same
interface as the native engine, so that published settings can be reproduced."""

from __future__ import annotations

from .. import arguments
from ..feedback import check_feedback
from ..info import CoinInfo
from ..text_env import MAX_OBS, Step
from ..twx.base import TWXEnv
from ..twx.gateway import signals_held
from .causes import command_cause
from .env import refused_error
from .explore import explore
from .generate import check_house
from .layout import House, load_layout
from .symbolic import DOMAIN, plan_commands, problem_text, true_facts
from .world import World


class TWXCoinCollectorEnv(TWXEnv):
    """TextWorld Express's ``coin`` game (see :class:`~..twx.base.TWXEnv` for seeds,
    the gold path and unknown commands, whose ``cause`` speaks CoinCollector's words).
    ``limit_inventory_size=False`` is TWX's ``limitInventorySize=0`` (no inventory
    limit). ``feedback="detailed"`` needs the native backend's hidden world.

    The hidden world, for evaluators and reference policies: the first reset of each
    instance walks the house once through the game's own texts (every room, every door
    opened; :func:`~.explore.explore`) and resets it again, and from then on planloop's
    engine plays each accepted command beside the game. ``world_pddl()``,
    ``observed_facts()`` and ``plan_commands()`` read it as the native backend's do, and
    a valid command the game refuses (moving through a closed door, opening an open one)
    is an ``inapplicable`` ``action_error`` with the native backend's ``unmet`` and
    ``cause``. Should a room the game describes ever differ from the engine's, the
    hidden world is no longer answered for (a RuntimeError), and refusals are no longer
    flagged."""

    needs = "backend='twx' needs"

    def __init__(
        self,
        num_locations: int = 5,
        include_doors: bool = True,
        num_distractor_items: int = 0,
        fold: str = "train",
        step_limit: int = 200,
        feedback: str = "game",
        render_mode: str | None = None,
        max_obs_length: int = MAX_OBS,
        limit_inventory_size: bool = True,
    ):
        check_house(num_locations, include_doors, num_distractor_items, fold)
        arguments.boolean("limit_inventory_size", limit_inventory_size)
        if check_feedback(feedback) != "game":
            raise ValueError(
                "feedback='detailed' needs backend='native': the real game "
                "shows no hidden world to explain a failure with"
            )
        super().__init__(
            "coin",
            {
                "numLocations": num_locations,
                "includeDoors": int(bool(include_doors)),
                "numDistractorItems": num_distractor_items,
                "limitInventorySize": int(bool(limit_inventory_size)),
            },
            fold,
            step_limit,
            render_mode,
            max_obs_length,
        )
        self._houses: dict[int, House] = {}
        self.world: World | None = None
        self._lost: str | None = None  # why the engine no longer follows the game

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs, info = super().reset(seed=seed, options=options)
        assert self.instance is not None  # set by the reset
        house = self._houses.get(self.instance)
        if house is None:
            house = self._houses[self.instance] = self._explore(info["look"])
            obs, info = super().reset(options={**(options or {}), "instance": self.instance})
        self.world, self._lost = World(house), None
        self._follow(info["look"])
        return obs, info

    def _step(self, command: str) -> Step[CoinInfo]:
        accepted = command.strip() in self._valid
        result = super()._step(command)
        world = self.world
        if world is None or self._lost is not None or not accepted:
            return result
        refused = None
        if command.strip() in world.view.commands:
            _, refused = world.execute(command.strip())
        self._follow(result[4]["look"])
        if refused is not None and refused.message == result[4]["feedback"]:
            # a valid command the game refuses (a closed door's move, an open door's
            # opening): an error, told as the native backend tells it
            self._info["action_error"] = refused_error("inapplicable", refused)
        return result

    # -- ground truth for evaluators (see the class's docstring) -----------------------
    def world_pddl(self) -> tuple[str, str]:
        """The hidden world now: (domain text, problem text)."""
        return DOMAIN, problem_text(self._followed())

    def observed_facts(self) -> list[str]:
        """The true facts the game's texts have shown the player so far."""
        return true_facts(self._followed(), observed_only=True)

    def plan_commands(self, plan) -> list[str]:
        """A plan for ``world_pddl()`` as game commands."""
        return plan_commands(self._followed(), plan)

    def _explore(self, look: str) -> House:
        """The instance's house, read by walking it (the game is left mid-walk)."""

        def step(command: str) -> tuple[str, str]:
            with signals_held():
                obs, _, _, infos = self._game.step(command)
            return obs, infos["look"]

        return load_layout(explore(look, step))

    def _follow(self, look: str) -> None:
        """Check the engine's room against the game's ``look``."""
        world = self.world
        if world is not None and world.view.description != look:
            self._lost = (
                f"the game shows {look!r:.120}, planloop's engine {world.view.description!r:.120}"
            )

    def _followed(self) -> World:
        if self.world is None:
            raise RuntimeError("call reset() first")
        if self._lost is not None:
            raise RuntimeError(f"the hidden world is no longer known: {self._lost}")
        return self.world

    def _cause(self, command: str) -> str:
        return command_cause(command, self._valid, "here")
