"""``CoinCollector-v0``: TextWorld Express's ``coin`` game, reimplemented word for word,
or the real game with ``backend="twx"``."""

import gymnasium as gym

from ..arguments import choice
from .env import CoinCollectorEnv
from .generate import generate_house
from .layout import House, load_layout


def coin_collector(backend: str = "native", **kwargs) -> gym.Env:
    """``CoinCollector-v0``: ``backend="native"`` (default, our engine) or ``"twx"``."""
    if choice("backend", backend, ("native", "twx")) == "twx":
        from .twx import TWXCoinCollectorEnv  # needs the twx extra and java

        return TWXCoinCollectorEnv(**kwargs)
    return CoinCollectorEnv(**kwargs)


__all__ = ["CoinCollectorEnv", "House", "coin_collector", "generate_house", "load_layout"]
