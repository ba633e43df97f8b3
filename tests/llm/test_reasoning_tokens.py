"""Reasoning tokens as the server reports them (OpenAI's
``completion_tokens_details.reasoning_tokens``), kept through the cache, in sums and in
an episode's record; absent or malformed they are 0 and the call stays metered; a cache
row or a record written before them still loads."""

import json
import sqlite3
from dataclasses import asdict

import pytest

from planloop.llm import CachedModel, OpenAIChat, ScriptedModel, Usage
from planloop.llm.fake_server import FakeChatServer, completion
from planloop.schema import schema_problem
from planloop.study.records import UsageFields

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


def test_a_cache_row_from_before_reasoning_tokens_loads(tmp_path):
    model = CachedModel(ScriptedModel(["fresh"]), tmp_path / "c.sqlite", always=True)
    messages = [{"role": "user", "content": "hi"}]
    old = {"calls": 1, "prompt_tokens": 20, "completion_tokens": 30, "seconds": 0.1,
           "cached_calls": 0, "unmetered_calls": 0}  # fmt: skip
    row = {"text": "old", "tool_calls": [], "usage": old, "model": "m", "cached": False}
    with sqlite3.connect(tmp_path / "c.sqlite") as db:
        db.execute(
            "INSERT INTO responses VALUES (?, ?)",
            (model.key(messages, None, {}), json.dumps(row)),
        )
    reply = model.complete(messages)
    assert (reply.text, reply.usage) == ("old", Usage(0, 20, 30, 0.0, 1, 0, 0))


def test_a_usage_record_fits_with_or_without_reasoning_tokens():
    record = asdict(Usage(1, 20, 30, 0.5, reasoning_tokens=7))
    assert record["reasoning_tokens"] == 7
    assert schema_problem(record, UsageFields) is None
    del record["reasoning_tokens"]
    assert schema_problem(record, UsageFields) is None
    record["reasoning_tokens"] = "7"
    assert "reasoning_tokens" in (schema_problem(record, UsageFields) or "")
