"""TextWorld Express's games through its own simulator (the ``twx`` extra and java)."""

from .base import TWXEnv

__all__ = ["TWXEnv"]
