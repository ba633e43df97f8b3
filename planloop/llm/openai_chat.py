"""Chat through the ``openai`` client: OpenAI itself or any OpenAI-compatible server
(vLLM, Ollama, llama.cpp's server), with bounded exponential backoff."""

from __future__ import annotations

import os
import random
import time

from .base import ChatResponse, LLMError, ToolCall, Usage

_PASS_THROUGH = ("temperature", "max_tokens", "seed", "reasoning_effort", "top_p", "stop")


class OpenAIChat:
    """``complete(messages, tools=None, **params)`` with retries on rate limits, server
    errors, timeouts and dropped connections; what still fails raises LLMError.

    ``params`` (temperature, max_tokens, seed, reasoning_effort, top_p, stop) default
    to the ones given here and pass through to the server unchanged.
    """

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None,
                 max_retries: int = 5, backoff: float = 1.0, max_backoff: float = 30.0,
                 timeout: float = 120.0, **params):
        import openai  # imported here so that planloop works without the extra

        unknown = set(params) - set(_PASS_THROUGH)
        if unknown:
            raise ValueError(f"unknown model parameters: {sorted(unknown)}")
        self.name = model
        self.base_url = base_url
        self.params = {"temperature": 0.0, **params}
        self.max_retries, self.backoff, self.max_backoff = max_retries, backoff, max_backoff
        key = api_key or os.environ.get("OPENAI_API_KEY") or ("local" if base_url else None)
        if key is None:
            raise LLMError("auth", "OPENAI_API_KEY is not set")
        self._openai = openai
        self._client = openai.OpenAI(api_key=key, base_url=base_url, timeout=timeout,
                                     max_retries=0)

    def complete(self, messages: list[dict], tools: list[dict] | None = None,
                 **params) -> ChatResponse:
        request = {**self.params, **params}
        request = {k: v for k, v in request.items() if v is not None}
        if tools:
            request["tools"] = tools
        start = time.monotonic()
        for attempt in range(self.max_retries + 1):
            try:
                reply = self._client.chat.completions.create(model=self.name, messages=messages,
                                                             **request)
                return self._response(reply, time.monotonic() - start)
            except Exception as exc:  # classified below; anything else is re-raised
                kind = self._kind(exc)
                if kind is None:
                    raise
                if kind not in ("rate_limit", "server", "timeout", "connection") \
                        or attempt == self.max_retries:
                    raise LLMError(kind, str(exc)) from exc
                delay = min(self.max_backoff, self.backoff * 2 ** attempt)
                time.sleep(delay * (0.5 + random.random() / 2))
        raise AssertionError("unreachable")  # pragma: no cover

    def _kind(self, exc: Exception) -> str | None:
        o = self._openai
        if isinstance(exc, o.RateLimitError):
            return "rate_limit"
        if isinstance(exc, o.InternalServerError):
            return "server"
        if isinstance(exc, o.APITimeoutError):
            return "timeout"
        if isinstance(exc, o.APIConnectionError):
            return "connection"
        if isinstance(exc, o.AuthenticationError):
            return "auth"
        if isinstance(exc, o.APIStatusError):
            return "server" if exc.status_code >= 500 else "bad_request"
        if isinstance(exc, o.OpenAIError):
            return "other"
        return None

    def _response(self, reply, seconds: float) -> ChatResponse:
        if not reply.choices:
            raise LLMError("other", "the server returned no choices")
        message = reply.choices[0].message
        calls = tuple(ToolCall(c.id, c.function.name, c.function.arguments or "")
                      for c in (message.tool_calls or ()))
        usage = reply.usage
        return ChatResponse(
            message.content or "", calls,
            Usage(1, getattr(usage, "prompt_tokens", 0) or 0,
                  getattr(usage, "completion_tokens", 0) or 0, seconds),
            reply.model or self.name)
