"""Reasoning tokens as the server reports them (OpenAI's
``completion_tokens_details.reasoning_tokens``), kept through the cache and in sums;
absent or malformed they are 0 and the call stays metered."""

import pytest

from planloop.llm import CachedModel, OpenAIChat, Usage
from planloop.llm.fake_server import FakeChatServer, completion

MESSAGE = {"role": "assistant", "content": "ok"}


def body(details) -> dict:
    reply = completion("o4-mini", MESSAGE)
    reply["usage"] = {
        "prompt_tokens": 20,
        "completion_tokens": 30,
        "completion_tokens_details": details,
    }
    return reply


@pytest.mark.parametrize(
    "details, reasoning", [({"reasoning_tokens": 7}, 7), (None, 0), ({"reasoning_tokens": "7"}, 0),
                           ({"reasoning_tokens": 31}, 0), ({"reasoning_tokens": -1}, 0)],
)  # fmt: skip
def test_reasoning_tokens_are_read_or_zero(details, reasoning):
    with FakeChatServer([("json", body(details))]) as server:
        usage = (
            OpenAIChat("o4-mini", base_url=server.url)
            .complete([{"role": "user", "content": "hi"}])
            .usage
        )
    assert (usage.reasoning_tokens, usage.completion_tokens, usage.unmetered_calls) == (
        reasoning,
        30,
        0,
    )


def test_the_cache_keeps_reasoning_tokens(tmp_path):
    messages = [{"role": "user", "content": "hi"}]
    with FakeChatServer([("json", body({"reasoning_tokens": 7}))]) as server:
        model = CachedModel(
            OpenAIChat("o4-mini", base_url=server.url), tmp_path / "c.sqlite", always=True
        )
        model.complete(messages)
        again = model.complete(messages)
    assert again.cached and again.usage.calls == 0 and again.usage.reasoning_tokens == 7


def test_reasoning_tokens_add_up():
    assert (
        Usage(1, 2, 3, reasoning_tokens=1) + Usage(1, 2, 3, reasoning_tokens=2)
    ).reasoning_tokens == 3
