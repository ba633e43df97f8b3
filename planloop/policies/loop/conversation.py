"""The ``conversation`` switch: how the messages of each model call are put together."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal, Protocol

from .prompts import BEFORE, LESSONS, PROGRESS

if TYPE_CHECKING:
    from .context import LoopContext

ConversationName = Literal["rebuild", "accumulate"]


class Conversation(Protocol):
    @property
    def name(self) -> str: ...

    def prompt(self, loop: LoopContext, question: str) -> list[dict]:
        """The messages that ask ``question``."""
        ...

    def record(self, loop: LoopContext, reply: str) -> None:
        """Keep the model's ``reply`` to the question, if the conversation does."""
        ...

    def introduce_step(self, loop: LoopContext, recap: str, step: str, before: list[str]) -> str:
        """Put a step's introduction (``recap`` then ``step``; the actions chosen
        ``before`` it) in context for per-variable grounding; the head of each of its
        parameter questions."""
        ...


class RebuiltConversation:
    """``rebuild``: each prompt afresh: the opening context, the explanations of earlier
    failures, the attempt's progress, the question (today's default)."""

    name: Literal["rebuild"] = "rebuild"

    def prompt(self, loop: LoopContext, question: str) -> list[dict]:
        messages = list(loop.context)
        if loop.lessons:
            lessons = "\n".join(f"- {lesson}" for lesson in loop.lessons)
            messages.append({"role": "user", "content": LESSONS.format(lessons=lessons)})
        if loop.trace:
            messages.append(
                {"role": "user", "content": PROGRESS.format(trace="\n".join(loop.trace))}
            )
        return messages + [{"role": "user", "content": question}]

    def record(self, loop: LoopContext, reply: str) -> None:
        pass

    def introduce_step(self, loop: LoopContext, recap: str, step: str, before: list[str]) -> str:
        return recap + step + "\n" + BEFORE.format(before=", ".join(before) or "none")


class AccumulatedConversation:
    """``accumulate``: one growing conversation with every question and reply (the
    study's); a step's introduction is a turn of its own, recapped at its first step."""

    name: Literal["accumulate"] = "accumulate"

    def prompt(self, loop: LoopContext, question: str) -> list[dict]:
        loop.messages.append({"role": "user", "content": question})
        return list(loop.messages)

    def record(self, loop: LoopContext, reply: str) -> None:
        loop.messages.append({"role": "assistant", "content": reply})

    def introduce_step(self, loop: LoopContext, recap: str, step: str, before: list[str]) -> str:
        loop.chat(("" if before else recap) + step)
        return ""


CONVERSATIONS: Mapping[str, Conversation] = {
    "rebuild": RebuiltConversation(),
    "accumulate": AccumulatedConversation(),
}
