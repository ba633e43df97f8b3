"""``call_model``: the one way policies call a model, so that no model can crash a study."""

from __future__ import annotations

from .base import ChatModel, ChatResponse, LLMError, ToolCall, Usage


def call_model(model: ChatModel, messages: list[dict], **params) -> ChatResponse:
    """``model.complete(messages, **params)`` whose every failure is an LLMError.

    Whatever else ``complete`` raises (a user's own model, a script run dry, a network
    library) becomes ``LLMError("client", "<ExceptionType>: <message>")``; a return value
    that is not a ChatResponse with text, tool calls and usage of the right types becomes
    ``LLMError("bad_response")``. The runner records an LLMError on the episode.
    """
    try:
        reply = model.complete(messages, **params)
    except LLMError:
        raise
    except Exception as exc:
        raise LLMError("client", f"{type(exc).__name__}: {exc}") from exc
    if not (
        isinstance(reply, ChatResponse)
        and isinstance(reply.text, str)
        and isinstance(reply.usage, Usage)
        and isinstance(reply.tool_calls, tuple)
        and all(isinstance(call, ToolCall) for call in reply.tool_calls)
    ):
        shown = repr(reply)
        raise LLMError(
            "bad_response",
            f"{getattr(model, 'name', type(model).__name__)} "
            f"returned {shown[:200]}{'...' * (len(shown) > 200)}, "
            f"not a ChatResponse with text",
        )
    return reply
