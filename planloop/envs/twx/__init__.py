"""TextWorld Express's games through its own simulator (the ``twx`` extra and java):
CoinCollector's ``backend="twx"`` and the seven other games, registered as ``TWX-*-v0``."""

from .base import TWXEnv
from .games import (
    ArithmeticEnv,
    CookingWorldEnv,
    MapReaderEnv,
    PeckingOrderEnv,
    SimonSaysEnv,
    SortingEnv,
    TWCEnv,
    TWXGameEnv,
)

GAMES = {
    "CookingWorld": CookingWorldEnv,
    "TWC": TWCEnv,
    "MapReader": MapReaderEnv,
    "Arithmetic": ArithmeticEnv,
    "Sorting": SortingEnv,
    "SimonSays": SimonSaysEnv,
    "PeckingOrder": PeckingOrderEnv,
}

__all__ = [
    "GAMES",
    "ArithmeticEnv",
    "CookingWorldEnv",
    "MapReaderEnv",
    "PeckingOrderEnv",
    "SimonSaysEnv",
    "SortingEnv",
    "TWCEnv",
    "TWXEnv",
    "TWXGameEnv",
]
