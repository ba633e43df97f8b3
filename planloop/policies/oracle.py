"""The reference player that knows the truth: it plays the environment's own ground truth
(a winning command list of the hidden world, or a plan of the task's PDDL), so a board's
ceiling is what the environment says can be won."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym

from ..pddl import solve
from .base import GIVE_UP, PolicyBase

ORACLE_PLANNER = "auto"  # the in-process planner first, Fast Downward past its budget
ORACLE_TIMEOUT = 60.0  # seconds to plan a fully observable task


class OraclePolicy(PolicyBase):
    """Plays the ground truth of ``env`` (a reference player: it reads ``env.unwrapped``,
    as the design allows evaluators and reference policies to):

    - a game that knows a winning command list: ``gold_path()`` (CoinCollector, the
      contingent environments, TextWorld Express) or ``walkthrough()`` (ALFWorld), taken
      at reset;
    - else a fully observable task: a plan of ``info["domain_pddl"]`` /
      ``["problem_pddl"]`` (the task as the agent sees it, so a renamed view's plan is
      in its names).

    ``rename`` turns a command of the true world into the agent's words (a renaming
    wrapper's own ``rename``). ``details["stop"]`` says why it gave up: ``no plan``
    (the planner's status) or ``no ground truth`` (a game with none, or whose search
    ran past its budget)."""

    name = "oracle"

    def __init__(self, env: gym.Env, rename: Callable[[str], str] | None = None):
        self.env, self._rename = env, rename or (lambda command: command)
        self._plan: list[str] = []
        self.details: dict = {}

    def reset(self, obs: str, info: dict) -> None:
        self.details = {"stop": None}
        game: Any = self.env.unwrapped  # a game with a ground truth, read by duck typing
        path = None
        if hasattr(game, "gold_path") or hasattr(game, "walkthrough"):
            try:
                path = game.gold_path() if hasattr(game, "gold_path") else game.walkthrough()
            except ValueError as exc:  # a search past its budget (a large contingent world)
                self.details["stop"] = f"no ground truth: {exc}"
        elif "domain_pddl" in info:
            result = solve(
                info["domain_pddl"],
                info["problem_pddl"],
                planner=ORACLE_PLANNER,
                timeout=ORACLE_TIMEOUT,
            )
            path = result.plan if result.solved else None
            if not result.solved:
                self.details["stop"] = f"no plan: {result.status}"
        if path is None:
            self.details["stop"] = self.details["stop"] or "no ground truth"
        self._plan = [self._rename(command) for command in path or ()]

    def act(self, obs: str, info: dict) -> str:
        return self._plan.pop(0) if self._plan else GIVE_UP
