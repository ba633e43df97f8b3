"""``CoinCollector-v0``: TextWorld Express's ``coin`` game, reimplemented word for word."""

from .env import CoinCollectorEnv
from .generate import generate_house
from .layout import House, load_layout

__all__ = ["CoinCollectorEnv", "House", "generate_house", "load_layout"]
