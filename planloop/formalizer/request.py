"""What the loop asks a formalizer for, and what comes back."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

from ..llm import Usage
from .extract import Files

Trigger = Literal["start", "growth", "solver_error", "simulation_error"]
TRIGGERS: tuple[Trigger, ...] = get_args(Trigger)


@dataclass(frozen=True)
class Request:
    """One call for files. ``trigger`` says why: the first files (``start``), new
    observations after a plan ran (``growth``), a check that failed (``solver_error``)
    or a step the game refused (``simulation_error``); ``error`` is then the message."""

    task: str
    trigger: Trigger
    history: tuple[str, ...]  # the first observation, then "> command\nobservation" each
    valid_commands: tuple[str, ...]
    new_observations: tuple[str, ...] = ()
    files: Files | None = None
    error: str | None = None
    succeeded: tuple[str, ...] = ()  # the commands that succeeded since the last files
    repeated: str | None = None  # a command that failed twice in a row
    frozen_df: str | None = None


@dataclass(frozen=True)
class Draft:
    """A formalizer's answer: the files, or why none could be read from the reply."""

    files: Files | None
    problem: str | None = None  # what made the reply unusable
    reply: str = ""
    usage: Usage = field(default_factory=Usage)
