"""What every chat model in planloop returns, and how its cost is counted."""

from __future__ import annotations

from dataclasses import astuple, dataclass, field
from typing import Literal, Protocol

from ..errors import PlanloopError

LLMErrorKind = Literal[
    "rate_limited",
    "server",
    "timeout",
    "connection",
    "bad_request",
    "auth",
    "bad_response",
    "client",
    "unreadable_reply",
    "other",
]


class LLMError(PlanloopError, RuntimeError):
    """A model call that failed for good (after retries); ``kind`` says why:
    ``rate_limited``, ``server``, ``timeout``, ``connection``, ``bad_request``, ``auth``,
    ``bad_response`` (a reply that is not a well-formed chat completion), ``client`` (the
    model object itself raised), ``unreadable_reply`` (a reply a protocol requires in a
    form, e.g. JSON, that it is not in) or ``other``. Policies record it on the episode
    (its text and, as ``error_kind``, its kind) instead of crashing the run."""

    def __init__(self, kind: LLMErrorKind, message: str):
        self.kind = kind
        super().__init__(f"{kind}: {message}")


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # JSON text, as the model wrote it


@dataclass(frozen=True)
class Usage:
    """Calls, tokens and seconds; add them up with ``+``.

    Token counts sum over metered calls only: ``unmetered_calls`` counts the calls whose
    server reported no (or no valid) token counts, which add none. ``reasoning_tokens``
    (OpenAI's ``completion_tokens_details.reasoning_tokens``) are part of the completion
    tokens, as OpenAI counts and bills them.
    """

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    cached_calls: int = 0
    unmetered_calls: int = 0
    reasoning_tokens: int = 0

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(*(a + b for a, b in zip(astuple(self), astuple(other), strict=True)))

    def __sub__(self, other: "Usage") -> "Usage":
        return Usage(*(a - b for a, b in zip(astuple(self), astuple(other), strict=True)))


@dataclass(frozen=True)
class ChatResponse:
    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    cached: bool = False


class ChatModel(Protocol):
    """Anything that answers a list of chat messages."""

    name: str

    def complete(
        self, messages: list[dict], tools: list[dict] | None = None, **params
    ) -> ChatResponse: ...
