"""Feedback granularity of the text games (``feedback=``): ``"game"``, the game's own
words, or ``"detailed"``, those words followed by the cause of a failed command. The
cause is always in ``info["action_error"]["cause"]``; the mode only decides whether the
player reads it.

``info["action_error"]`` keeps one shape on every step, so that vector envs can batch
it: a step that did not fail has the same keys, empty (``kind`` is ``""``; see
:mod:`.info`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, get_args

from ..pddl import quote
from .arguments import choice
from .info import CausedError

FeedbackMode = Literal["game", "detailed"]
FEEDBACK_MODES: tuple[FeedbackMode, ...] = get_args(FeedbackMode)


def action_failure(info: Mapping[str, Any]) -> dict | None:
    """The step's ``action_error`` if its command failed, else None."""
    error = info.get("action_error")
    return error if error and error["kind"] else None


def check_feedback(feedback: str) -> FeedbackMode:
    return choice("feedback", feedback, FEEDBACK_MODES)


def observation(feedback: FeedbackMode, text: str, error: CausedError) -> str:
    """What the player reads: the game's text, then (detailed mode) a failure's cause."""
    if feedback == "game" or not error["kind"]:
        return text
    cause = error["cause"]
    return text + cause if not text or text[-1].isspace() else f"{text} {cause}"


def slip_of(command: str, valid: Iterable[str]) -> str | None:
    """The valid command that ``command`` misspells only in letter case or spacing."""
    key = " ".join(command.lower().split())
    return next((v for v in valid if v.lower() == key), None)


def slip_cause(command: str, valid: Iterable[str]) -> str | None:
    slip = slip_of(command, valid)
    return None if slip is None else f"Commands must be typed exactly: did you mean {quote(slip)}?"


def not_a_command(command: str, forms: str) -> str:
    """The cause for a command that fits none of the game's ``forms`` (listed in words)."""
    if not command.strip():
        return f"No command was given. The game's commands are: {forms}."
    return f"{quote(command)} is not one of the game's commands: {forms}."
