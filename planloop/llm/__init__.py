"""Chat models for the policies: the openai client (OpenAI or any OpenAI-compatible
server), a persistent cache, usage accounting, a log of what requests sent and test
doubles."""

from __future__ import annotations

from typing import Any

from .base import ChatModel, ChatResponse, LLMError, LLMErrorKind, ToolCall, Usage
from .cache import CachedModel
from .doubles import InteractiveModel, ScriptedModel
from .guard import call_model
from .openai_chat import OpenAIChat
from .sent import SentRecord, recording


def parse_spec(spec: str) -> tuple[str | None, str]:
    """``(base_url, model name)`` of ``openai:MODEL`` (base_url None) or ``URL@MODEL``;
    a ValueError for anything else."""
    if spec.startswith("openai:") and spec[len("openai:") :]:
        return None, spec[len("openai:") :]
    base_url, at, name = spec.partition("@")
    if at and name and base_url.startswith(("http://", "https://")):
        return base_url, name
    raise ValueError(f"cannot read model spec {spec!r}: use openai:MODEL, URL@MODEL or interactive")


def make_model(spec: str, cache: str | None = "~/.cache/planloop/llm.sqlite", **params: Any):
    """A model from a command-line spec.

    ``openai:MODEL`` (OPENAI_API_KEY), ``URL@MODEL`` for an OpenAI-compatible server
    (``http://localhost:8000/v1@Qwen/Qwen2.5-7B-Instruct``) or ``interactive``.
    ``params`` go to :class:`OpenAIChat` (the parameters set, and ``defaults``).
    Answers sent at temperature 0 are cached in ``cache`` (None turns the cache off).
    """
    if spec == "interactive":
        return InteractiveModel()
    base_url, name = parse_spec(spec)
    model = OpenAIChat(name, base_url=base_url, **params)
    return CachedModel(model, cache) if cache else model


__all__ = [
    "CachedModel",
    "ChatModel",
    "ChatResponse",
    "InteractiveModel",
    "LLMError",
    "LLMErrorKind",
    "OpenAIChat",
    "ScriptedModel",
    "SentRecord",
    "ToolCall",
    "Usage",
    "call_model",
    "make_model",
    "parse_spec",
    "recording",
]
