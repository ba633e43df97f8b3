"""What every planner returns: a :class:`PlanResult` with one of the statuses
:data:`PlanStatus` names."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal, get_args

PlanStatus = Literal["solved", "unsolvable", "timeout", "out_of_memory", "invalid_input", "error"]
STATUSES: tuple[PlanStatus, ...] = get_args(PlanStatus)


@dataclass(frozen=True)
class PlanResult:
    """What a planner returned. ``plan`` holds ``(action args)`` strings when solved;
    ``exit_code`` is Fast Downward's last exit code (None when it did not run or finish)."""

    status: PlanStatus
    plan: tuple[str, ...] | None
    message: str
    seconds: float
    planner: str = ""
    exit_code: int | None = None

    @property
    def solved(self) -> bool:
        return self.status == "solved"


def timed_out(planner: str, doing: str, timeout: float, start: float) -> PlanResult:
    """The result of ``planner``'s call started at ``start``, which was still ``doing``
    (reading, grounding) when its ``timeout`` ran out."""
    return PlanResult(
        "timeout",
        None,
        f"{doing} took more than the timeout of {timeout} s",
        time.monotonic() - start,
        planner,
    )
