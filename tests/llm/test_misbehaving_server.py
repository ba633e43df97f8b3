"""OpenAIChat against a local server misbehaving in every way the campaign of issue 9
found: each bad reply is one LLMError, each call ends by its deadline, Retry-After is
honoured up to its cap, and token counts are only counted when they are counts."""

import functools
import json
import re
import time
import tracemalloc
import zlib
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest

pytest.importorskip("openai")

from planloop.llm import LLMError, OpenAIChat, Usage  # noqa: E402
from planloop.llm.fake_server import FakeChatServer, completion  # noqa: E402
from planloop.llm.openai_chat import retry_after  # noqa: E402

HELLO = [{"role": "user", "content": "hello"}]
GOOD = completion("test-model", {"role": "assistant", "content": "hi"})
GOOD_BODY = json.dumps(GOOD).encode()


def model(server, **kwargs):
    return OpenAIChat(
        "test-model",
        base_url=server.url,
        **{"timeout": 3, "max_retries": 2, "backoff": 0.01, **kwargs},
    )


def with_message(**fields):
    return (
        "json",
        {
            **GOOD,
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": None, **fields},
                }
            ],
        },
    )


def tool(**function):
    return {"id": "call_1", "type": "function", "function": function}


BAD_REPLIES = {
    "not_json": ("raw", 200, {}, b"<html>502 Bad Gateway</html>"),
    "empty": ("raw", 200, {}, b""),
    "truncated": ("raw", 200, {}, GOOD_BODY[:60]),
    "garbage_10mb": ("raw", 200, {}, bytes(range(256)) * 40960),
    "plain_text": ("raw", 200, {"Content-Type": "text/plain"}, b"Sure! Here is my plan."),
    "event_stream": (
        "raw",
        200,
        {"Content-Type": "text/event-stream"},
        b"data: " + GOOD_BODY + b"\n\ndata: [DONE]\n\n",
    ),
    "deeply_nested": ("raw", 200, {}, b"[" * 100_000 + b"]" * 100_000),
    "null": ("json", None),
    "list": ("json", [GOOD]),
    "string": ("json", "hi"),
    "no_choices": ("json", {**GOOD, "choices": []}),
    "choice_a_string": ("json", {**GOOD, "choices": ["hi"]}),
    "message_null": ("json", {**GOOD, "choices": [{"index": 0, "message": None}]}),
    "content_a_number": with_message(content=42),
    "content_a_list": with_message(content=[1, 2]),
    "content_parts_not_text": with_message(content=[{"type": "image_url", "image_url": {}}]),
    "tool_calls_garbage": with_message(tool_calls="act"),
    "tool_call_null": with_message(tool_calls=[None]),
    "function_null": with_message(tool_calls=[{"id": "c", "type": "function", "function": None}]),
    "function_garbage": with_message(tool_calls=[{"id": "c", "function": "act"}]),
    "function_without_name": with_message(tool_calls=[tool(arguments="{}")]),
    "arguments_a_number": with_message(tool_calls=[tool(name="act", arguments=5)]),
    "id_a_number": with_message(
        tool_calls=[{"id": 7, "function": {"name": "act", "arguments": "{}"}}]
    ),
}


@pytest.mark.parametrize("reply", BAD_REPLIES.values(), ids=BAD_REPLIES.keys())
def test_a_malformed_reply_is_one_bad_response_error_quoting_the_body(reply):
    with FakeChatServer([reply, ("ok", "never")]) as server:
        with pytest.raises(LLMError) as err:
            model(server).complete(HELLO)
    assert err.value.kind == "bad_response" and len(server.requests) == 1
    said = "refused unread" if reply is BAD_REPLIES["garbage_10mb"] else "the body ("
    assert said in str(err.value) and len(str(err.value)) < 400


ACCEPTED = {
    "content_null": (with_message(), "", ()),
    "content_text_parts": (
        with_message(content=[{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]),
        "ab",
        (),
    ),
    "tool_calls_null": (with_message(content="hi", tool_calls=None), "hi", ()),
    "arguments_an_object": (
        with_message(tool_calls=[tool(name="act", arguments={"x": 1})]),
        "",
        (("call_1", "act", '{"x": 1}'),),
    ),
}


@pytest.mark.parametrize("reply, text, calls", ACCEPTED.values(), ids=ACCEPTED.keys())
def test_well_formed_variants_are_read(reply, text, calls):
    with FakeChatServer([reply]) as server:
        response = model(server).complete(HELLO)
    assert response.text == text
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == list(calls)


def test_a_tool_call_without_id_gets_one_and_a_reply_without_model_is_named_for_ours():
    payload = {
        "choices": [
            {
                "message": {
                    "content": None,
                    "tool_calls": [{"function": {"name": "act", "arguments": "{}"}}],
                }
            }
        ]
    }
    with FakeChatServer([("json", payload)]) as server:
        response = model(server).complete(HELLO)
    call = response.tool_calls[0]
    assert call.id.startswith("call_") and call.name == "act" and call.arguments == "{}"
    assert response.model == "test-model"


USAGES = {
    "counts": ({"prompt_tokens": 11, "completion_tokens": 7}, (11, 7, 0)),
    "strings": ({"prompt_tokens": "11", "completion_tokens": "7"}, (0, 0, 1)),
    "negative_floats": ({"prompt_tokens": -1.5, "completion_tokens": -2.0}, (0, 0, 1)),
    "booleans": ({"prompt_tokens": True, "completion_tokens": False}, (0, 0, 1)),
    "one_missing": ({"prompt_tokens": 11}, (0, 0, 1)),
    "not_an_object": ("lots", (0, 0, 1)),
    "null": (None, (0, 0, 1)),
}


@pytest.mark.parametrize("usage, expected", USAGES.values(), ids=USAGES.keys())
def test_token_counts_are_counts_or_the_call_is_unmetered(usage, expected):
    with FakeChatServer([("json", {**GOOD, "usage": usage})]) as server:
        response = model(server).complete(HELLO)
    got = response.usage
    assert (got.calls, got.prompt_tokens, got.completion_tokens, got.unmetered_calls) == (
        1,
        *expected,
    )
    twice = got + got
    assert twice.unmetered_calls == 2 * expected[2] and twice - got == got


@pytest.mark.parametrize(
    "reply, options",
    [
        (("drip", GOOD_BODY, 0.2), {"timeout": 0.5}),  # each byte well within the timeout
        (("slow", 5.0, "late"), {"timeout": 10}),  # the headers come after the deadline
        (("status", 500), {"backoff": 0.4, "max_backoff": 0.4, "max_retries": 10}),
    ],
    ids=["body_drip", "slow_headers", "backoff_pauses"],
)
@pytest.mark.slow
def test_every_call_ends_by_its_deadline(reply, options):
    with FakeChatServer([reply] * 11) as server:
        client = model(server, deadline=1.0, **options)
        start = time.monotonic()
        with pytest.raises(LLMError) as err:
            client.complete(HELLO)
        spent = time.monotonic() - start
    assert spent < 1.6, spent
    assert "1 s deadline" in str(err.value)
    # a deadline that falls in a backoff pause ends on the server's error; one that falls
    # in the request (a busy machine's slow answer) on the timeout
    assert err.value.kind in (("server", "timeout") if reply[0] == "status" else ("timeout",))


def test_the_default_deadline_covers_every_attempt_and_pause():
    chat = OpenAIChat("m", base_url="http://127.0.0.1:9/v1", timeout=3, max_retries=2, backoff=1)
    assert chat.deadline == 3 * 3 + 1 + 2


@pytest.mark.parametrize(
    "status, headers, least",
    [
        (429, {"Retry-After": "1"}, 0.9),
        (503, {"retry-after-ms": "300"}, 0.3),
    ],
)
@pytest.mark.slow
def test_retry_after_is_honoured(status, headers, least):
    with FakeChatServer([("status", status, headers), ("ok", "done")]) as server:
        client = model(server)
        start = time.monotonic()
        assert client.complete(HELLO).text == "done"
    assert time.monotonic() - start >= least and len(server.requests) == 2


IN_AN_HOUR = "an HTTP date an hour from when the test runs"  # made in the test, not at import


@pytest.mark.parametrize(
    "headers, options, asked",
    [
        ({"Retry-After": "3600"}, {}, r"3600 s"),
        ({"Retry-After": IN_AN_HOUR}, {}, r"3[56]\d\d(\.\d+)? s"),
        ({"Retry-After": "3"}, {"max_retry_after": 2}, r"3 s"),
        ({"Retry-After": "5"}, {"deadline": 2}, r"5 s"),
    ],
    ids=["past_the_cap", "http_date", "own_cap", "past_the_deadline"],
)
def test_a_wait_too_long_fails_at_once_saying_how_long(headers, options, asked):
    if headers.get("Retry-After") == IN_AN_HOUR:
        headers = {
            "Retry-After": format_datetime(
                datetime.now(timezone.utc) + timedelta(hours=1), usegmt=True
            )
        }
    with FakeChatServer([("status", 429, headers), ("ok", "never")]) as server:
        client = model(server, **options)
        start = time.monotonic()
        with pytest.raises(LLMError) as err:
            client.complete(HELLO)
    assert len(server.requests) == 1  # no retry: it did not wait
    assert time.monotonic() - start < 60  # a hang guard, not a speed claim
    assert err.value.kind == "rate_limited" and re.search(f"asked to wait {asked}", str(err.value))


@pytest.mark.parametrize(
    "headers, seconds",
    [
        ({"Retry-After": "3"}, 3.0),
        ({"retry-after": "0.5"}, 0.5),
        ({"Retry-After": "30", "Retry-After-Ms": "250"}, 0.25),
        ({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, 0.0),  # in the past
        ({"Retry-After": "soon"}, None),
        ({"Retry-After": "-5"}, None),
        ({"retry-after-ms": "nan"}, None),
        ({}, None),
    ],
)
def test_retry_after_header_values(headers, seconds):
    assert retry_after(headers) == seconds


def test_usage_without_unmetered_calls_still_constructs_positionally():
    assert Usage(1, 2, 3, 0.5) + Usage(1, 1, 1, 0.5, 0, 1) == Usage(2, 3, 4, 1.0, 0, 1)


def compressed(data: bytes, encoding: str) -> bytes:
    """``data`` as a server sends it under ``Content-Encoding: encoding`` (compressed a
    MiB at a time, so a bomb is never whole here either)."""
    if encoding == "br":
        brotli = pytest.importorskip("brotli", reason="httpx decodes br only with brotli")
        return brotli.compress(data)
    wbits = {"gzip": 31, "deflate": 15, "raw deflate": -15}[encoding]
    packer = zlib.compressobj(9, zlib.DEFLATED, wbits)
    view = memoryview(data)
    return b"".join(packer.compress(view[i : i + 2**20]) for i in range(0, len(data), 2**20)) + (
        packer.flush()
    )


@functools.cache
def bomb_content(size: int) -> bytes:
    return b'{"choices": [{"message": {"content": "' + b"x" * size + b'"}}]}'


BOMBS = {
    "gzip": ("gzip", "gzip"),
    "deflate": ("deflate", "deflate"),
    "raw_deflate": ("raw deflate", "deflate"),
    "br": ("br", "br"),
    "gzip_in_gzip": ("gzip in gzip", "gzip, gzip"),
}


@pytest.mark.parametrize("encoding, header", BOMBS.values(), ids=BOMBS.keys())
def test_a_compressed_bomb_is_refused_by_its_decompressed_size_in_bounded_memory(encoding, header):
    content = bomb_content(64 * 2**20)  # 64 MiB, some 64 KiB on the wire
    if encoding == "gzip in gzip":
        body = compressed(compressed(content, "gzip"), "gzip")
    else:
        body = compressed(content, encoding)
    assert len(body) < 200_000
    with FakeChatServer([("raw", 200, {"Content-Encoding": header}, body)]) as server:
        client = model(server)
        client.max_reply_bytes = 1_000_000
        tracemalloc.start()
        try:
            with pytest.raises(LLMError) as err:
                client.complete(HELLO)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    said = str(err.value)
    assert err.value.kind == "bad_response" and len(server.requests) == 1  # not retried
    assert "decompresses to more than 1,000,000 bytes (max_reply_bytes)" in said
    assert "\n" not in said and len(said) < 200
    # the reply whole would hold 64 MiB at least once; what is held stays near the cap
    assert peak < 16 * 2**20, f"{peak / 2**20:.0f} MiB"


def test_a_compressed_reply_under_the_cap_is_read_whole():
    text = "y" * 500_000
    body = json.dumps(completion("test-model", {"role": "assistant", "content": text}))
    reply = ("raw", 200, {"Content-Encoding": "gzip"}, compressed(body.encode(), "gzip"))
    with FakeChatServer([reply]) as server:
        client = model(server)
        client.max_reply_bytes = 1_000_000
        assert client.complete(HELLO).text == text
