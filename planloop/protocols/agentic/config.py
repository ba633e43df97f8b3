"""Every setting of the agentic study, with its one default: the study's flags, the
protocol's settings and the settings each run is keyed by come from
:class:`AgenticConfig`."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Literal

from ...study.config import StudyConfig, setting
from ...study.flags import non_negative_float


def cap(text: str) -> int | None:
    """A count of at least 1, or ``none`` for no cap."""
    if text.strip().lower() == "none":
        return None
    if text.strip().isdigit() and int(text) >= 1:
        return int(text)
    raise argparse.ArgumentTypeError(f"a cap is a count of at least 1 or 'none', not {text!r}")


@dataclass(frozen=True)
class AgenticConfig(StudyConfig):
    """The agentic study's settings (see :mod:`planloop.study.config`), every one in
    the study's settings (beside the temperature and the protocol)."""

    seconds: float = setting(
        180.0,
        "every approach's wall-clock budget per instance",
        type=non_negative_float,
        metavar="S",
        keyed="always",
    )
    max_attempts: int | None = setting(
        5, "the direct baseline's samples, 'none' for no cap", type=cap, metavar="K", keyed="always"
    )
    max_model_calls: int | None = setting(
        60,
        "the agentic loop's model calls, 'none' for no cap",
        type=cap,
        metavar="N",
        keyed="always",
    )
    max_tool_calls: int | None = setting(
        200,
        "the agentic loop's tool calls, 'none' for no cap",
        type=cap,
        metavar="N",
        keyed="always",
    )
    feedback: Literal["cause", "outcome"] = setting(
        "cause",
        "execute_action answers with the cause of a failure and its unmet facts (cause), "
        "or success or failure only (outcome, the paper's)",
        choices=("cause", "outcome"),
        keyed="always",
    )
