"""The one place where a chat-completion body from a server becomes a ChatResponse.

Every field the policies use is checked; a body that is not a well-formed completion
raises ``LLMError("bad_response")`` quoting the start of the body. Token counts that are
absent or not non-negative integers make the call unmetered (see ``Usage``).
"""

from __future__ import annotations

import json
import uuid

from .base import ChatResponse, LLMError, ToolCall, Usage

EXCERPT = 200  # characters of the body quoted in an error


class _Malformed(Exception):
    """Why a parsed body is not a chat completion."""


def parse_reply(body: bytes, model: str, seconds: float) -> ChatResponse:
    """The ChatResponse in ``body`` (``model`` names it when the body does not)."""
    try:
        data = json.loads(body)
        if not isinstance(data, dict):
            raise _Malformed(f"the body is a JSON {type(data).__name__}, not an object")
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices:
            raise _Malformed("'choices' is not a non-empty list")
        message = choices[0].get("message") if isinstance(choices[0], dict) else None
        if not isinstance(message, dict):
            raise _Malformed("the first choice has no 'message' object")
        return ChatResponse(
            _text(message.get("content")),
            _tool_calls(message.get("tool_calls")),
            _usage(data.get("usage"), seconds),
            data["model"] if isinstance(data.get("model"), str) and data["model"] else model,
        )
    except (_Malformed, ValueError, RecursionError) as exc:
        why = str(exc) if not isinstance(exc, RecursionError) else "JSON nested too deeply"
        raise LLMError(
            "bad_response", f"{why}; the body ({len(body)} bytes) begins {excerpt(body)}"
        ) from None


def excerpt(body: bytes, limit: int = EXCERPT) -> str:
    """The start of ``body``, repr-escaped, at most about ``limit`` characters."""
    text = repr(body[:limit].decode("utf-8", "replace"))
    return text if len(text) <= limit and len(body) <= limit else text[:limit] + "..."


def _text(content: object) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(
        isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)
        for part in content
    ):
        return "".join(part["text"] for part in content)
    raise _Malformed(f"the message content is a {type(content).__name__}, not text")


def _tool_calls(calls: object) -> tuple[ToolCall, ...]:
    if calls is None:
        return ()
    if not isinstance(calls, list):
        raise _Malformed("'tool_calls' is not a list")
    return tuple(_tool_call(call) for call in calls)


def _tool_call(call: object) -> ToolCall:
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(call, dict) or not isinstance(function, dict):
        raise _Malformed("a tool call has no 'function' object")
    name, arguments = function.get("name"), function.get("arguments")
    if not isinstance(name, str) or not name:
        raise _Malformed("a tool call has no function name")
    if isinstance(arguments, dict):
        arguments = json.dumps(arguments)
    if not isinstance(arguments, str):
        raise _Malformed(f"the arguments of tool call {name!r} are neither text nor an object")
    call_id = call.get("id")
    if call_id in (None, ""):
        call_id = f"call_{uuid.uuid4().hex[:12]}"
    if not isinstance(call_id, str):
        raise _Malformed(f"the id of tool call {name!r} is not text")
    return ToolCall(call_id, name, arguments)


def _usage(usage: object, seconds: float) -> Usage:
    prompt, completion = (
        usage.get(key) if isinstance(usage, dict) else None
        for key in ("prompt_tokens", "completion_tokens")
    )
    if type(prompt) is int and prompt >= 0 and type(completion) is int and completion >= 0:
        details = usage.get("completion_tokens_details") if isinstance(usage, dict) else None
        reasoning = details.get("reasoning_tokens") if isinstance(details, dict) else None
        if type(reasoning) is not int or not 0 <= reasoning <= completion:
            reasoning = 0  # absent or not a count: the call stays metered
        return Usage(1, prompt, completion, seconds, reasoning_tokens=reasoning)
    return Usage(1, 0, 0, seconds, unmetered_calls=1)
