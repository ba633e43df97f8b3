"""The model of a replayed run: the recorded answers, no network."""

from __future__ import annotations

from ..llm import ChatResponse, LLMError, OpenAIChat


class Offline:
    """``model`` with its network cut: its name, server and request building are the
    model's (so a cache keys each request as the run did), and a call the cache cannot
    answer is an LLMError naming the replay."""

    def __init__(self, model: OpenAIChat):
        self.model, self.name = model, model.name

    def __getattr__(self, name: str):  # base_url, params, request(), request_record()
        return getattr(self.__dict__["model"], name)

    def complete(
        self, messages: list[dict], tools: list[dict] | None = None, **params
    ) -> ChatResponse:
        raise LLMError("other", "replay: this request is not among the run's recorded calls")
