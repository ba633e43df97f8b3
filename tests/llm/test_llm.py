"""The openai client against a local OpenAI-compatible server; cache; doubles."""

import io
import json
import sqlite3
import threading

import pytest

pytest.importorskip("openai")

from planloop.llm import (  # noqa: E402
    CachedModel,
    ChatResponse,
    InteractiveModel,
    LLMError,
    OpenAIChat,
    ScriptedModel,
    Usage,
    make_model,
)
from planloop.llm.fake_server import FakeChatServer  # noqa: E402

HELLO = [{"role": "user", "content": "hello"}]


def model(server, **kwargs):
    kwargs.setdefault("backoff", 0.01)
    return OpenAIChat("test-model", base_url=server.url, **kwargs)


def test_reply_usage_and_parameters_pass_through():
    with FakeChatServer([("ok", "hi there")]) as server:
        reply = model(server, temperature=0.3, max_tokens=20, seed=7).complete(HELLO)
    assert reply.text == "hi there" and reply.model == "test-model"
    assert (reply.usage.calls, reply.usage.prompt_tokens, reply.usage.completion_tokens) == (
        1,
        11,
        7,
    )
    sent = server.requests[0]
    assert sent["temperature"] == 0.3 and sent["max_tokens"] == 20 and sent["seed"] == 7
    assert sent["messages"] == HELLO


@pytest.mark.parametrize("failure", [429, 500, 503])
def test_retries_rate_limits_and_server_errors(failure):
    with FakeChatServer([("status", failure), ("status", failure), ("ok", "done")]) as server:
        reply = model(server).complete(HELLO)
    assert reply.text == "done" and len(server.requests) == 3


def test_gives_up_after_bounded_retries_with_a_clear_error():
    with FakeChatServer([("status", 429)] * 10) as server:
        with pytest.raises(LLMError) as err:
            model(server, max_retries=2).complete(HELLO)
    assert err.value.kind == "rate_limited" and len(server.requests) == 3


def test_bad_request_is_not_retried():
    with FakeChatServer([("status", 400), ("ok", "never")]) as server:
        with pytest.raises(LLMError) as err:
            model(server).complete(HELLO)
    assert err.value.kind == "bad_request" and len(server.requests) == 1


def test_slow_reply_times_out_then_retries():
    with FakeChatServer([("slow", 2.0, "late"), ("ok", "on time")]) as server:
        reply = model(server, timeout=0.5).complete(HELLO)
    assert reply.text == "on time" and len(server.requests) == 2


def test_tool_calls_are_returned():
    tools = [
        {
            "type": "function",
            "function": {
                "name": "act",
                "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
            },
        }
    ]
    with FakeChatServer([("tool", "act", '{"command": "(attack a)"}')]) as server:
        reply = model(server).complete(HELLO, tools=tools)
    assert reply.tool_calls[0].name == "act"
    assert reply.tool_calls[0].arguments == '{"command": "(attack a)"}'
    assert server.requests[0]["tools"] == tools


def test_cache_answers_repeats_without_a_call(tmp_path):
    with FakeChatServer([("ok", "first"), ("ok", "second")]) as server:
        cached = CachedModel(model(server), tmp_path / "cache.sqlite")
        assert cached.complete(HELLO).text == "first"
        again = CachedModel(model(server), tmp_path / "cache.sqlite").complete(HELLO)
        assert again.text == "first" and again.cached and again.usage.calls == 0
        assert cached.complete(HELLO, temperature=0.7).text == "second"  # not cached
    assert len(server.requests) == 2


def test_cache_reads_rows_with_and_without_unmetered_calls(tmp_path):
    path = tmp_path / "c.sqlite"
    unmetered = ChatResponse("fresh", usage=Usage(1, 0, 0, 0.1, unmetered_calls=1))
    cached = CachedModel(ScriptedModel([unmetered, "old"]), path)
    assert cached.complete(HELLO) == unmetered
    assert CachedModel(ScriptedModel([]), path).complete(HELLO).text == "fresh"
    old = [{"role": "user", "content": "old"}]
    cached.complete(old)
    with sqlite3.connect(path) as db:  # a row as written before Usage.unmetered_calls
        key = cached.key(old, None, {})
        row = json.loads(
            db.execute("SELECT response FROM responses WHERE key = ?", (key,)).fetchone()[0]
        )
        del row["usage"]["unmetered_calls"]
        db.execute("UPDATE responses SET response = ? WHERE key = ?", (json.dumps(row), key))
    again = CachedModel(ScriptedModel([]), path).complete(old)
    assert again.text == "old" and again.cached and again.usage.cached_calls == 1


def test_cache_is_safe_across_threads(tmp_path):
    scripted = ScriptedModel(lambda messages: messages[0]["content"].upper())
    cached = CachedModel(scripted, tmp_path / "c.sqlite")
    prompts = [[{"role": "user", "content": f"p{i % 5}"}] for i in range(40)]
    results = [None] * len(prompts)

    def ask(i):
        results[i] = cached.complete(prompts[i]).text

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(prompts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [p[0]["content"].upper() for p in prompts]


def test_scripted_model_and_usage_sum():
    scripted = ScriptedModel(["one", LLMError("server", "down"), "three"])
    assert scripted.complete(HELLO).text == "one"
    with pytest.raises(LLMError):
        scripted.complete(HELLO)
    assert scripted.complete(HELLO).text == "three" and scripted.calls == 3
    with pytest.raises(IndexError, match="3 replies"):
        scripted.complete(HELLO)
    assert Usage(1, 2, 3, 0.5) + Usage(1, 1, 1, 0.5) == Usage(2, 3, 4, 1.0)


def test_interactive_model_reads_a_person():
    out = io.StringIO()
    person = InteractiveModel(stdin=io.StringIO("(attack a)\n(feast b c)\n.\n"), stdout=out)
    reply = person.complete([{"role": "system", "content": "You plan."}] + HELLO)
    assert reply.text == "(attack a)\n(feast b c)"
    assert "You plan." in out.getvalue() and "hello" in out.getvalue()


def test_model_specs(monkeypatch, tmp_path):
    local = make_model("http://localhost:8000/v1@Qwen/Qwen2.5-7B-Instruct", cache=None)
    assert local.name == "Qwen/Qwen2.5-7B-Instruct" and local.base_url.startswith("http://")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(LLMError, match="OPENAI_API_KEY"):
        make_model("openai:gpt-4o-mini", cache=None)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert isinstance(make_model("openai:gpt-4o-mini", cache=str(tmp_path / "c")), CachedModel)
    with pytest.raises(ValueError, match="model spec"):
        make_model("gpt-4o")
