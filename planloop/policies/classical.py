"""Baselines with no language model: a classical planner, and random play."""

from __future__ import annotations

import random

from ..pddl import PlanResult, solve
from .base import GIVE_UP, PolicyBase


class PlannerPolicy(PolicyBase):
    """Plans once from ``info["domain_pddl"]``/``["problem_pddl"]`` (the task as the
    agent sees it) and executes the plan; gives up when the planner finds none."""

    def __init__(self, planner: str = "lama-first", timeout: float = 60.0):
        self.planner, self.timeout = planner, timeout
        self.name = f"planner:{planner}"
        self.result: PlanResult | None = None
        self._plan: list[str] = []

    def reset(self, obs: str, info: dict) -> None:
        if "domain_pddl" not in info:
            raise ValueError(
                "PlannerPolicy needs a fully observable environment "
                "(info['domain_pddl'] and info['problem_pddl'])"
            )
        self.result = result = solve(
            info["domain_pddl"], info["problem_pddl"], planner=self.planner, timeout=self.timeout
        )
        self._plan = list(result.plan or ())

    def act(self, obs: str, info: dict) -> str:
        return self._plan.pop(0) if self._plan else GIVE_UP


class RandomPolicy(PolicyBase):
    """Picks uniformly among ``info["admissible_actions"]``, seeded."""

    name = "random"

    def __init__(self, seed: int = 0):
        self._rng = random.Random(seed)

    def reset(self, obs: str, info: dict) -> None:
        pass

    def act(self, obs: str, info: dict) -> str:
        actions = info.get("admissible_actions")
        if not actions:
            return GIVE_UP
        return self._rng.choice(sorted(actions))
