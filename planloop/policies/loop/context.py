"""What the loop's strategies (``ask``, ``conversation``, ``grounding``, ``opening``)
may read and call of the policy they serve: this narrow view, not the policy itself."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ...pddl import Domain
    from .conversation import Conversation


class LoopContext(Protocol):
    """An episode of the closed loop as its strategies see it, read-only (an
    accumulating conversation appends to ``messages``).

    The task: ``domain`` (in the names the agent sees), ``objects`` (name -> type),
    ``goal`` (in words), ``summary`` (the domain in words, may be empty) and ``horizon``
    (actions per proposal; None: the whole plan). The conversation so far: ``context``
    (the messages every prompt starts from), ``messages`` (the one growing conversation,
    when it accumulates), ``lessons`` (the explanations of earlier failures), ``trace``
    (this attempt's progress) and ``conversation`` (the switch that assembles them)."""

    @property
    def domain(self) -> Domain: ...
    @property
    def objects(self) -> Mapping[str, str]: ...
    @property
    def goal(self) -> str: ...
    @property
    def summary(self) -> str: ...
    @property
    def horizon(self) -> int | None: ...
    @property
    def context(self) -> list[dict]: ...
    @property
    def messages(self) -> list[dict]: ...
    @property
    def lessons(self) -> list[str]: ...
    @property
    def trace(self) -> list[str]: ...
    @property
    def conversation(self) -> Conversation: ...

    def chat(self, question: str) -> str:
        """The model's reply to ``question``, asked as the conversation switch puts it."""
        ...

    def describe(self, name: str) -> tuple[str, dict[str, str]]:
        """Action ``name`` in words, and each parameter's description."""
        ...

    def action_list(self) -> str:
        """The task's actions, one line each, as the prompts list them."""
        ...

    def read_names(self, reply: str) -> list[tuple[str, str]]:
        """The action names a reply proposes, each with the line that names it."""
        ...

    def read_numbered(self, reply: str) -> list[tuple[str, str]]:
        """The same, from a numbered list."""
        ...
