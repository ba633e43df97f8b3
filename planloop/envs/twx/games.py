"""The TextWorld Express games besides CoinCollector, each with its own parameters:
TWX's ``gameParams`` as keyword arguments (snake case), checked before the game starts.
Ranges are those TWX's generators accept (its README says more for some)."""

from __future__ import annotations

from dataclasses import dataclass

from ..arguments import boolean, integer
from ..text_env import MAX_OBS
from .base import TWXEnv


@dataclass(frozen=True)
class Parameter:
    """A game's parameter: the keyword, TWX's name, the default (a bool for a flag) and,
    for an integer, its range."""

    keyword: str
    twx: str
    default: int | bool
    low: int = 0
    high: int = 1

    def check(self, value) -> int:
        """``value`` as TWX reads it (a flag is 0 or 1)."""
        if isinstance(self.default, bool):
            return int(boolean(self.keyword, value))
        return integer(self.keyword, value, self.low, self.high)


class TWXGameEnv(TWXEnv):
    """A TextWorld Express ``game`` whose ``parameters`` are keyword arguments.
    ``step_limit`` (TWX's own move limit) defaults to ``max_steps``, the registered
    ``max_episode_steps``."""

    game: str
    parameters: tuple[Parameter, ...] = ()
    max_steps: int = 100

    def __init__(
        self,
        fold: str = "train",
        step_limit: int | None = None,
        render_mode: str | None = None,
        max_obs_length: int = MAX_OBS,
        **params,
    ):
        super().__init__(
            self.game,
            self._game_params(params),
            fold,
            self.max_steps if step_limit is None else step_limit,
            render_mode,
            max_obs_length,
        )

    @classmethod
    def _game_params(cls, given: dict) -> dict[str, int]:
        """TWX's ``gameParams`` from the keyword arguments ``given`` (defaults filled)."""
        known = {p.keyword: p for p in cls.parameters}
        for keyword in given:
            if keyword not in known:
                accepted = ", ".join(
                    [*known, "fold", "step_limit", "render_mode", "max_obs_length"]
                )
                raise TypeError(
                    f"{cls.__name__} takes no argument {keyword!r}; its arguments are {accepted}"
                )
        return {p.twx: p.check(given.get(p.keyword, p.default)) for p in cls.parameters}


def _locations(high: int, default: int, low: int = 1) -> Parameter:
    return Parameter("num_locations", "numLocations", default, low, high)


class CookingWorldEnv(TWXGameEnv):
    """Gather a recipe's ingredients, prepare them (slice, dice, chop; fry, roast,
    grill), prepare the meal and eat it. Wrong preparations fail the task."""

    game = "cookingworld"
    parameters = (
        _locations(11, 11),
        Parameter("num_ingredients", "numIngredients", 3, 1, 5),
        Parameter("num_distractor_items", "numDistractorItems", 10, 0, 10),
        Parameter("include_doors", "includeDoors", True),
        Parameter("limit_inventory_size", "limitInventorySize", True),
    )
    max_steps = 200


class TWCEnv(TWXGameEnv):
    """TextWorld Commonsense: put objects away in their usual places."""

    game = "twc"
    parameters = (
        _locations(3, 3),
        Parameter("num_items_to_put_away", "numItemsToPutAway", 4, 1, 4),
        Parameter("include_doors", "includeDoors", False),
        Parameter("limit_inventory_size", "limitInventorySize", False),
    )


class MapReaderEnv(TWXGameEnv):
    """Fetch the coin from a named room, reading a map, and put it in the box in the
    starting room. Some seeds cannot place the coin ``max_distance_apart`` from the
    start in small worlds: their reset is a ValueError."""

    game = "mapreader"
    parameters = (
        _locations(48, 15, low=2),
        Parameter("max_distance_apart", "maxDistanceApart", 4, 1, 8),
        Parameter("max_distractor_items_per_location", "maxDistractorItemsPerLocation", 3, 0, 3),
        Parameter("include_doors", "includeDoors", False),
        Parameter("limit_inventory_size", "limitInventorySize", False),
    )


class ArithmeticEnv(TWXGameEnv):
    """Solve a math problem, then put the bundle of that many objects in the box."""

    game = "arithmetic"
    max_steps = 50


class SortingEnv(TWXGameEnv):
    """Put objects in the box by increasing quantity (with units); a wrong one fails."""

    game = "sorting"
    max_steps = 50


class SimonSaysEnv(TWXGameEnv):
    """Do exactly what Simon says, ``game_length`` times. With ``memorization`` the
    whole sequence is shown at the first step only; ``verbose`` (with memorization)
    answers each right command with "Correct!". A long game needs a larger
    ``max_episode_steps`` (and ``step_limit``)."""

    game = "simonsays"
    parameters = (
        Parameter("game_length", "gameLength", 5, 1, 1000),
        Parameter("num_distractors", "numDistractors", 3, 0, 5),
        Parameter("memorization", "memorization", False),
        Parameter("verbose", "verbose", False),
    )
    max_steps = 50


class PeckingOrderEnv(TWXGameEnv):
    """Read the instructions book and follow it, again until the game ends."""

    game = "peckingorder"
    max_steps = 50
