"""Everything that picks actions through the one step interface, and the runner."""

from .agentic import AgenticPolicy
from .base import GIVE_UP, RESTART, MinimalPolicy, Policy, PolicyBase
from .classical import PlannerPolicy, RandomPolicy
from .contingent_replanner import ContingentReplanner
from .direct import DirectPlanPolicy
from .loop import ClosedLoopPolicy, OpenLoopPolicy
from .oracle import OraclePolicy
from .pddlego import PDDLegoPolicy
from .plangen import PlanGenPolicy, PlanGenStepsPolicy
from .repair import RepairPipelinePolicy
from .runner import Episode, run_episode

__all__ = [
    "AgenticPolicy",
    "ClosedLoopPolicy",
    "ContingentReplanner",
    "DirectPlanPolicy",
    "Episode",
    "GIVE_UP",
    "MinimalPolicy",
    "OpenLoopPolicy",
    "OraclePolicy",
    "PDDLegoPolicy",
    "PlanGenPolicy",
    "PlanGenStepsPolicy",
    "Policy",
    "PolicyBase",
    "PlannerPolicy",
    "RESTART",
    "RandomPolicy",
    "RepairPipelinePolicy",
    "run_episode",
]
