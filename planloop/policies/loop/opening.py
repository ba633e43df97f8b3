"""The ``opening`` switch: how the conversation with the model begins."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal, Protocol

from .asking import Ask
from .conversation import Conversation
from .prompts import GENERIC_OPENING, STUDY_GOAL, STUDY_OPENINGS, STUDY_START, SYSTEM, TASK

if TYPE_CHECKING:
    from .context import LoopContext

OpeningName = Literal["brief", "study"]


class Opening(Protocol):
    @property
    def name(self) -> str: ...

    def check(self, conversation: Conversation, ask: Ask) -> None:
        """Raise ValueError unless the opening can begin that conversation and asking."""
        ...

    def context(self, intro: str, objects: str, goal: str) -> list[dict]:
        """The messages every prompt starts from: the domain (``intro``), the task's
        ``objects`` and its ``goal``."""
        ...

    def propose_first(self, loop: LoopContext, state: str) -> list[tuple[str, str]] | None:
        """The episode's first proposal from the starting ``state``, when the opening
        makes it (None: the ``ask`` switch does)."""
        ...


class BriefOpening:
    """``brief``: the domain and the task in a system and a user message (today's
    default)."""

    name: Literal["brief"] = "brief"

    def check(self, conversation: Conversation, ask: Ask) -> None:
        pass

    def context(self, intro: str, objects: str, goal: str) -> list[dict]:
        return [
            {"role": "system", "content": SYSTEM.format(intro=intro)},
            {"role": "user", "content": TASK.format(objects=objects, goal=goal)},
        ]

    def propose_first(self, loop: LoopContext, state: str) -> list[tuple[str, str]] | None:
        return None


class StudyOpening:
    """``study``: the study's turns, each answered: the role (a household robot, for
    Baking), the kinds of objects with a summary of the domain, the starting state, then
    the goal with the actions; needs the accumulating conversation and the sequence."""

    name: Literal["study"] = "study"

    def check(self, conversation: Conversation, ask: Ask) -> None:
        if (conversation.name, ask.name) != ("accumulate", "sequence"):
            raise ValueError(
                "opening='study' opens the study's conversation: it needs "
                "conversation='accumulate' and ask='sequence'"
            )

    def context(self, intro: str, objects: str, goal: str) -> list[dict]:
        return []

    def propose_first(self, loop: LoopContext, state: str) -> list[tuple[str, str]] | None:
        opening = STUDY_OPENINGS.get(loop.domain.name, GENERIC_OPENING)
        kinds = "\n".join(kind.replace("-", " ") for kind in loop.domain.types if kind != "object")
        loop.chat(opening.role)
        loop.chat(opening.world.format(kinds=kinds, summary=loop.summary and "\n\n" + loop.summary))
        loop.chat(STUDY_START.format(state=state, reminder=opening.reminder))
        return loop.read_numbered(
            loop.chat(STUDY_GOAL.format(goal=loop.goal, actions=loop.action_list(), avoid="any"))
        )


OPENINGS: Mapping[str, Opening] = {"brief": BriefOpening(), "study": StudyOpening()}
