"""Chat models for the policies: the openai client (OpenAI or any OpenAI-compatible
server), a persistent cache, usage accounting and test doubles."""

from __future__ import annotations

from .base import ChatModel, ChatResponse, LLMError, ToolCall, Usage
from .cache import CachedModel
from .doubles import InteractiveModel, ScriptedModel
from .guard import call_model
from .openai_chat import OpenAIChat


def make_model(spec: str, cache: str | None = "~/.cache/planloop/llm.sqlite", **params):
    """A model from a command-line spec.

    ``openai:MODEL`` (OPENAI_API_KEY), ``URL@MODEL`` for an OpenAI-compatible server
    (``http://localhost:8000/v1@Qwen/Qwen2.5-7B-Instruct``) or ``interactive``.
    Temperature-0 answers are cached in ``cache`` (None turns the cache off).
    """
    if spec == "interactive":
        return InteractiveModel()
    if spec.startswith("openai:"):
        model = OpenAIChat(spec[len("openai:") :], **params)
    elif "@" in spec and spec.split("@", 1)[0].startswith(("http://", "https://")):
        base_url, name = spec.split("@", 1)
        model = OpenAIChat(name, base_url=base_url, **params)
    else:
        raise ValueError(
            f"cannot read model spec {spec!r}: use openai:MODEL, URL@MODEL or interactive"
        )
    return CachedModel(model, cache) if cache else model


__all__ = [
    "CachedModel",
    "ChatModel",
    "ChatResponse",
    "InteractiveModel",
    "LLMError",
    "OpenAIChat",
    "ScriptedModel",
    "ToolCall",
    "Usage",
    "call_model",
    "make_model",
]
