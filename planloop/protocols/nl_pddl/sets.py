"""The problem sets the formalization study plays: planloop's formalization domains
(:data:`planloop.envs.problem_sets.DOMAINS`) and ``planbench``, PlanBench's Blocksworld
for the paper's transfer (Table 5) and direct-planning (Table 2) comparisons: the 600
instances ``Blocksworld-v0`` ships (generated in PlanBench's proportions, 3 to 5
blocks; :mod:`planloop.envs.blocksworld`) over its 4-operator domain."""

from __future__ import annotations

from functools import cache

from ...envs.blocksworld import GeneratedInstances
from ...envs.problem_sets import DOMAINS, ProblemSet

PLANBENCH = "planbench"


@cache
def _planbench_problems() -> tuple[str, ...]:
    return tuple(GeneratedInstances())


SETS: dict[str, ProblemSet] = {
    **DOMAINS,
    PLANBENCH: ProblemSet(PLANBENCH, "blocksworld.pddl", fixed=_planbench_problems),
}


def problem_set(name: str) -> ProblemSet:
    """The set called ``name``."""
    if name not in SETS:
        raise ValueError(f"unknown problem set {name!r:.80}; known: {', '.join(SETS)}")
    return SETS[name]
