"""Every setting of the horizon study, with its one default: the study's flags, the
protocol's settings and the settings each run is keyed by come from
:class:`HorizonConfig`. The loop policies' switches and action limit default to the policies' own
(:data:`planloop.policies.loop.DEFAULT`)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any, Literal

from ...policies.loop import (
    CHOICES,
    DEFAULTS,
    AskName,
    ConversationName,
    FeedbackName,
    GroundingName,
    OpeningName,
)
from ...policies.loop import DEFAULT as LOOP
from ...study.config import StudyConfig, setting
from ...study.flags import positive_int


def parse_restarts(text: str) -> int | None:
    """``--max-restarts``: a count of at least 0, or ``none`` for no cap."""
    if text.strip().lower() == "none":
        return None
    if text.strip().isdigit():
        return int(text)
    raise argparse.ArgumentTypeError(f"max restarts is a count or 'none', not {text!r}")


def _switch(name: str, help: str) -> Any:
    return setting(getattr(LOOP, name), help, choices=CHOICES[name])


@dataclass(frozen=True)
class HorizonConfig(StudyConfig):
    """The horizon study's settings (see :mod:`planloop.study.config`): ``max_actions``
    always in the study's settings, the switches and ``progress_feedback`` when not at
    their default (beside the temperature and the protocol)."""

    trials: int = setting(
        5, "trials per horizon and problem (the harness's --trials)", flag="", keyed="never"
    )
    max_actions: int = setting(
        LOOP.max_actions,
        "actions per episode at most",
        type=positive_int,
        metavar="N",
        keyed="always",
    )
    feedback: FeedbackName = _switch(
        "feedback",
        "on a failure the environment's cause, or the executed actions, the state before "
        "the failure and the failed action (state)",
    )
    grounding: GroundingName = _switch("grounding", "one question per action, or per parameter")
    conversation: ConversationName = _switch(
        "conversation", "a new conversation per call, or one growing"
    )
    ask: AskName = _switch(
        "ask", "ask for the next H actions, or the whole sequence (its first H run)"
    )
    opening: OpeningName = _switch(
        "opening", "a brief task, or the study's introduction of the domain, state and goal"
    )
    max_restarts: int | None = setting(
        LOOP.max_restarts,
        "explained restarts per episode, 'none' for no cap",
        type=parse_restarts,
        metavar="N",
    )
    progress_feedback: Literal["off", "ff", "add"] = setting(
        "off",
        "tell the model after each action whether the goal came closer, by h_FF or h_add",
        choices=("off", "ff", "add"),
    )

    @property
    def switches(self) -> dict[str, Any]:
        """The loop policies' switches, by name."""
        return {name: getattr(self, name) for name in DEFAULTS}


DEFAULT = HorizonConfig()  # every setting at its default
