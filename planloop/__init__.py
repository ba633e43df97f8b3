"""planloop: Gymnasium environments for interactive and partially observable planning,
backed by exact PDDL worlds, and the policies that act on them."""

from .envs import register_envs
from .errors import PlanloopError

register_envs()

__version__ = "0.1.0"
__all__ = ["PlanloopError", "register_envs"]
