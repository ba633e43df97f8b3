"""Everything that picks actions through the one step interface, and the runner."""

from .base import GIVE_UP, RESTART, Policy
from .classical import PlannerPolicy, RandomPolicy
from .direct import DirectPlanPolicy
from .runner import Episode, run_episode

__all__ = ["DirectPlanPolicy", "Episode", "GIVE_UP", "Policy", "PlannerPolicy", "RESTART", "RandomPolicy",
           "run_episode"]
