"""The ``ask`` switch: how the model is asked for the next actions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal, Protocol

from .prompts import ASK_ALL, ASK_NEXT, PAPER_REPLAN, PAPER_SEQUENCE

if TYPE_CHECKING:
    from .context import LoopContext

AskName = Literal["next", "sequence"]


class Ask(Protocol):
    @property
    def name(self) -> str: ...

    def propose(
        self, loop: LoopContext, situation: str, state: str, first: bool
    ) -> list[tuple[str, str]]:
        """The action names the model proposes, each with its instruction (the line that
        names it); ``first``: the attempt's first proposal. ``situation`` is the
        observation, ``state`` the same without the last step's feedback."""
        ...


class AskNext:
    """``next``: the next H action names (the whole plan at H = None), today's default."""

    name: Literal["next"] = "next"

    def propose(
        self, loop: LoopContext, situation: str, state: str, first: bool
    ) -> list[tuple[str, str]]:
        question = (
            ASK_ALL.format(situation=situation)
            if loop.horizon is None
            else ASK_NEXT.format(situation=situation, count=loop.horizon)
        )
        return loop.read_names(loop.chat(question))


class AskSequence:
    """``sequence``: the whole sequence each time, in the study's words (after a failure,
    its replanning lead); the policy executes its first H."""

    name: Literal["sequence"] = "sequence"

    def propose(
        self, loop: LoopContext, situation: str, state: str, first: bool
    ) -> list[tuple[str, str]]:
        replan = bool(loop.lessons) and first
        reply = loop.chat(
            PAPER_SEQUENCE.format(
                lead=PAPER_REPLAN if replan else "",
                situation=state,
                goal=loop.goal,
                actions=loop.action_list(),
                avoid="all" if replan else "any",
            )
        )
        return loop.read_numbered(reply)


ASKS: Mapping[str, Ask] = {"next": AskNext(), "sequence": AskSequence()}
