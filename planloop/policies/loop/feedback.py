"""The ``feedback`` switch: what the model sees of a failed action, in the attempt's
trace and in the question why it failed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, Protocol

from .prompts import ASK_WHY, PAPER_WHY

FeedbackName = Literal["cause", "state"]


class Feedback(Protocol):
    @property
    def name(self) -> str: ...

    def traces(self, failed: bool) -> bool:
        """Whether the attempt's trace shows what the environment said of the action."""
        ...

    def question(
        self, action: str, situation: str, state: str, attempt: list[str], info: dict
    ) -> str:
        """Why did ``action`` fail? ``situation`` is the observation it was tried in,
        ``state`` the same without the last step's feedback, ``attempt`` the actions
        tried in this attempt, ``info`` the failed step's."""
        ...


class CauseFeedback:
    """``cause``: the failed action, the situation and the environment's words on why it
    failed (today's default)."""

    name: Literal["cause"] = "cause"

    def traces(self, failed: bool) -> bool:
        return True

    def question(
        self, action: str, situation: str, state: str, attempt: list[str], info: dict
    ) -> str:
        return ASK_WHY.format(action=action, situation=situation, feedback=info.get("feedback", ""))


class StateFeedback:
    """``state``: only the executed actions, the state before the failure and the failed
    action (the study's explanation prompt); the cause stays unseen."""

    name: Literal["state"] = "state"

    def traces(self, failed: bool) -> bool:
        return not failed

    def question(
        self, action: str, situation: str, state: str, attempt: list[str], info: dict
    ) -> str:
        executed = "".join(f"\n{i}. {step}" for i, step in enumerate(attempt, 1))
        return PAPER_WHY.format(executed=executed + "\n", state=state, action=action)


FEEDBACKS: Mapping[str, Feedback] = {"cause": CauseFeedback(), "state": StateFeedback()}
