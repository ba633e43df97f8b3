"""Every setting of the Mystery study, with its one default: the study's flags, the
protocol's settings and the settings each run is keyed by come from
:class:`MysteryConfig`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ...pddl import PLANNER_NAMES
from ...study.config import StudyConfig, setting
from ...study.flags import positive_float, positive_int


@dataclass(frozen=True)
class MysteryConfig(StudyConfig):
    """The Mystery study's settings (see :mod:`planloop.study.config`); :meth:`key`
    holds those that enter the study's settings (the temperature and the protocol are
    added beside them)."""

    attempts: int = setting(
        5,
        "plans per episode for the LLM conditions",
        type=positive_int,
        metavar="K",
        keyed="always",
    )
    direct_attempts: int | None = setting(
        None,
        "plans per episode of the direct conditions (none: --attempts)",
        type=positive_int,
        metavar="K",
    )
    max_seconds: float = setting(
        180.0,
        "the time budget of direct generation and of the agentic condition (the papers')",
        type=positive_float,
        metavar="S",
        keyed="always",
    )
    agentic_feedback: Literal["outcome", "cause"] = setting(
        "outcome",
        "execute_action answers success or failure only (outcome, the agentic paper's) "
        "or also the unmet facts (cause)",
        choices=("outcome", "cause"),
        keyed="always",
    )
    max_actions: int = setting(
        50, "the closed loop's cap on actions", type=positive_int, metavar="N", keyed="always"
    )
    progress_feedback: Literal["off", "ff", "add"] = setting(
        "off",
        "tell the policies after each action whether the goal came closer, by h_FF or h_add",
        choices=("off", "ff", "add"),
    )
    planner: str = setting(
        "lama-first",
        "the planner condition's Fast Downward configuration",
        choices=PLANNER_NAMES,
        keyed="always",
    )
    planner_timeout: float = setting(
        60.0, "the planner condition's seconds", type=positive_float, metavar="S", keyed="always"
    )
    top_k: int = setting(
        5, "NPMI pairs shown each way", type=positive_int, metavar="K", keyed="never"
    )

    @property
    def direct_budget(self) -> int:
        """The direct conditions' plans per episode."""
        return self.direct_attempts or self.attempts
