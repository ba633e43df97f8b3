"""Request parameters real endpoints accept: OpenAI's reasoning models and gateways
that refuse a parameter, against the local server answering as they answer."""

import copy
import json

import pytest

pytest.importorskip("openai")

from planloop.llm import CachedModel, LLMError, OpenAIChat  # noqa: E402
from planloop.llm.fake_server import FakeChatServer, openai_rules, refusing  # noqa: E402
from planloop.llm.requests import build_request, is_reasoning_model  # noqa: E402

HELLO = [{"role": "user", "content": "hello"}]


def chat(server, name, **kwargs):
    return OpenAIChat(name, base_url=server.url, backoff=0.01, **kwargs)


@pytest.mark.parametrize(
    "name",
    [
        "o1",
        "o1-mini",
        "o3-mini",
        "o3-mini-2025-01-31",
        "o4-mini-2025-04-16",
        "gpt-5",
        "gpt-5-mini",
        "gpt-5.1",
        "openai/o3-mini",
        "O3",
    ],
)
def test_reasoning_families_are_known_by_name(name):
    assert is_reasoning_model(name)


@pytest.mark.parametrize(
    "name", ["gpt-4o", "gpt-4o-2024-05-13", "gpt-4.1", "o3x", "Qwen/Qwen2.5-7B", "llama3-o1"]
)
def test_other_models_are_not_reasoning_models(name):
    assert not is_reasoning_model(name)


def test_a_reasoning_model_gets_no_default_sampling_and_max_completion_tokens():
    sent = build_request("o3-mini", {"temperature": 0.0, "top_p": 0.9}, {}, {"max_tokens": 9}, {})
    assert sent == {"max_completion_tokens": 9}
    kept = build_request("o3-mini", {"temperature": 0.0}, {"temperature": 0.5}, {}, {})
    assert kept == {"temperature": 0.5}  # set by the user: sent
    own = build_request("o3-mini", {"top_p": 1, "temperature": 0.2}, {}, {}, {})
    assert own == {"top_p": 1}  # the model's own value, as the PDDLego+ authors sent it


@pytest.mark.parametrize("no_sampling", [False, True])
@pytest.mark.parametrize("name", ["o3-mini", "o4-mini-2025-04-16", "gpt-5"])
def test_reasoning_models_answer_with_planloops_defaults_and_a_policys_temperature(
    name, no_sampling
):
    with FakeChatServer([("ok", "a"), ("ok", "b")], openai_rules(no_sampling)) as server:
        model = chat(server, name)
        assert model.complete(HELLO).text == "a"
        assert model.complete(HELLO, temperature=0.2, max_tokens=50).text == "b"
    assert len(server.requests) == 2  # nothing refused, nothing retried
    assert "temperature" not in server.requests[0]
    assert server.requests[1].get("max_completion_tokens") == 50
    assert "max_tokens" not in server.requests[1]


def test_the_fake_server_refuses_as_openai_does():
    with FakeChatServer([("ok", "never")], openai_rules()) as server:
        with pytest.raises(LLMError) as err:
            chat(server, "o3-mini", temperature=0.2).complete(HELLO)
    assert err.value.kind == "bad_request"
    assert "temperature=0.2" in str(err.value) and "o3-mini" in str(err.value)
    assert "Only the default (1) value is supported" in str(err.value)
    assert len(server.requests) == 1


def test_a_refused_default_is_dropped_once_and_remembered():
    with FakeChatServer([("ok", "a"), ("ok", "b")], refusing("top_p")) as server:
        model = chat(server, "gateway-model", defaults={"top_p": 1, "temperature": 0})
        probe = copy.copy(model)  # as check_model probes: the copy learns for the run
        assert probe.complete(HELLO).text == "a"
        assert model.complete(HELLO).text == "b"
    assert [("top_p" in r) for r in server.requests] == [True, False, False]
    assert model.request_record() == {
        "sent": {"temperature": 0},
        "dropped": ["top_p"],
        "served_model": "gateway-model",
    }


def test_a_refused_parameter_the_user_set_is_an_error_naming_it():
    with FakeChatServer([("ok", "never")], refusing("top_p")) as server:
        with pytest.raises(LLMError) as err:
            chat(server, "gateway-model", top_p=0.9).complete(HELLO)
    assert err.value.kind == "bad_request" and "top_p=0.9" in str(err.value)
    assert len(server.requests) == 1


def test_a_huge_error_body_is_cut():
    body = b'{"error": {"message": "' + b"x" * 1_000_000 + b'"}}'
    with FakeChatServer([("raw", 400, {}, body)]) as server:
        with pytest.raises(LLMError) as err:
            chat(server, "m").complete(HELLO)
    assert len(str(err.value)) < 1000


def test_the_cache_keeps_only_answers_sent_at_temperature_zero(tmp_path):
    with FakeChatServer([("ok", "a"), ("ok", "b"), ("ok", "c"), ("ok", "d")]) as server:
        greedy = CachedModel(chat(server, "gpt-4o"), tmp_path / "c.sqlite")
        assert greedy.complete(HELLO).text == greedy.complete(HELLO).text == "a"
        sampled = CachedModel(chat(server, "gpt-4o", defaults={"top_p": 1}), tmp_path / "c.sqlite")
        assert [sampled.complete(HELLO).text for _ in range(2)] == ["b", "c"]
        reasoning = CachedModel(chat(server, "o3-mini"), tmp_path / "c.sqlite")
        assert reasoning.complete(HELLO).text == "d"
    assert len(server.requests) == 4


def test_a_reply_over_the_byte_cap_is_refused_unread_and_not_retried():
    big = json.dumps({"choices": [{"message": {"content": "x" * 3_000_000}}]}).encode()
    with FakeChatServer([("raw", 200, {}, big), ("ok", "never")]) as server:
        model = chat(server, "m")
        model.max_reply_bytes = 1_000_000
        with pytest.raises(LLMError) as err:
            model.complete(HELLO)
    assert err.value.kind == "bad_response" and "1,000,000 bytes" in str(err.value)
    assert len(server.requests) == 1
    with FakeChatServer([("ok", "y" * 500_000)]) as server:
        model = chat(server, "m")
        model.max_reply_bytes = 1_000_000
        assert len(model.complete(HELLO).text) == 500_000  # under the cap: whole


def test_a_request_parameter_is_declared_once_and_every_study_takes_its_flag():
    """``planloop.llm.requests.PARAMS`` is the one list: the names a request may carry,
    and each study's request flags with their ranges, are read from it."""
    import argparse
    import re

    from planloop.llm.requests import PARAMS, REQUEST_PARAMS
    from planloop.study.flags import REQUEST_FLAGS, study_parser

    assert REQUEST_PARAMS == tuple(p.name for p in PARAMS)
    assert set(REQUEST_FLAGS) == {p.name for p in PARAMS if p.flag}
    parser = study_parser(None, env="Baking-v0", out="x")
    parser.exit_on_error = False  # an error raised, not printed
    flags = {a.dest: a for a in parser._actions}
    for param in PARAMS:
        assert (param.name in flags) == param.flag
    args = parser.parse_args(["--temperature", "0.5", "--seed", "-3", "--top-p", "1"])
    assert (args.temperature, args.seed, args.top_p) == (0.5, -3, 1.0)
    for flag, value, said in (
        ("--temperature", "2.5", "a temperature is a number from 0 to 2, not '2.5'"),
        ("--temperature", "nan", "a temperature is a number from 0 to 2, not 'nan'"),
        ("--frequency-penalty", "x", "a penalty is a number from -2 to 2, not 'x'"),
        ("--max-tokens", "0", "expected an integer of at least 1, not '0'"),
        ("--reasoning-effort", "max", "invalid choice: 'max'"),
    ):
        with pytest.raises(argparse.ArgumentError, match=re.escape(said)):
            parser.parse_args([flag, value])
