"""ALFWorld's text games (``ALFWorld-v0``) on planloop's own PDDL engine."""

from .engine import Engine, Outcome, World
from .env import ALFWorldEnv
from .game import TASK_TYPES, Game, load_game

__all__ = ["ALFWorldEnv", "Engine", "Game", "Outcome", "TASK_TYPES", "World", "load_game"]
