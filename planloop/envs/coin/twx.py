"""``CoinCollector-v0`` with ``backend="twx"``: the real TextWorld Express game (the
``textworld-express`` package, which runs a Java simulator), behind the same
interface as the native engine, so that published settings can be reproduced."""

from __future__ import annotations

from ..feedback import check_feedback
from ..text_env import MAX_OBS
from ..twx.base import TWXEnv
from .causes import command_cause
from .generate import check_house


class TWXCoinCollectorEnv(TWXEnv):
    """TextWorld Express's ``coin`` game (see :class:`~..twx.base.TWXEnv` for seeds,
    the gold path and unknown commands, whose ``cause`` speaks CoinCollector's words).
    ``feedback="detailed"`` needs the native backend's hidden world."""

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
    ):
        check_house(num_locations, include_doors, num_distractor_items, fold)
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
            },
            fold,
            step_limit,
            render_mode,
            max_obs_length,
        )

    def _cause(self, command: str) -> str:
        return command_cause(command, self._valid, "here")
