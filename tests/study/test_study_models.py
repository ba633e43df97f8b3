"""planloop.study.models: opening the --llm model and checking it answers, each failure
one line (a StudyError), fast."""

import io
import time

import pytest

from planloop.llm import InteractiveModel, LLMError, ScriptedModel
from planloop.study import StudyError, check_model, open_model

GARBAGE = ("raw", 200, {"Content-Type": "text/html"}, b"<html>502 Bad Gateway</html>")


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))  # the model cache lives under ~


def one_line_error(raised) -> str:
    message = str(raised.value)
    assert "\n" not in message and message.strip() == message
    return message


@pytest.mark.parametrize("key", [None, ""])
def test_no_api_key(monkeypatch, key):
    pytest.importorskip("openai")
    if key is None:
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    else:
        monkeypatch.setenv("OPENAI_API_KEY", key)
    with pytest.raises(StudyError) as raised:
        open_model("openai:gpt-4o-mini")
    assert one_line_error(raised) == (
        "openai:gpt-4o-mini needs an API key: set OPENAI_API_KEY "
        "(or use URL@MODEL for a local server)"
    )


def test_a_local_server_needs_no_key(monkeypatch):
    pytest.importorskip("openai")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert open_model("http://127.0.0.1:1/v1@my-model").name == "my-model"


@pytest.mark.parametrize(
    "spec, message",
    [
        (
            "gpt-4o-mini",
            "cannot read model spec 'gpt-4o-mini': use openai:MODEL, URL@MODEL or interactive",
        ),
        ("localhost:8000@m", "cannot read model spec 'localhost:8000@m'"),
        (None, "--llm is required: openai:MODEL, URL@MODEL or interactive"),
    ],
)
def test_unreadable_specs(spec, message):
    with pytest.raises(StudyError) as raised:
        open_model(spec)
    assert message in one_line_error(raised)


def test_any_other_failure_is_one_line(monkeypatch):
    def broken(spec, **params):
        raise OSError("disk full\nsomewhere")

    monkeypatch.setattr("planloop.study.models.make_model", broken)
    with pytest.raises(StudyError) as raised:
        open_model("openai:m")
    assert one_line_error(raised) == "cannot open model openai:m: OSError: disk full somewhere"


@pytest.mark.slow
def test_a_closed_port_fails_fast_and_leaves_episode_retries_alone(closed_port):
    pytest.importorskip("openai")
    model = open_model(f"http://127.0.0.1:{closed_port}/v1@m")
    start = time.monotonic()
    with pytest.raises(StudyError) as raised:
        check_model(model)
    seconds = time.monotonic() - start
    message = one_line_error(raised)
    assert message.startswith(
        f"model m at http://127.0.0.1:{closed_port}/v1 cannot answer: connection: "
    )
    assert "is the server running?" in message
    assert seconds < 15, seconds  # one probe, not an episode's ~30 s of retries
    inner = model.model  # the CachedModel's client: the episodes' retry settings as they were
    assert inner.max_retries == 5 and inner.deadline > 100


@pytest.mark.parametrize(
    "reply, expected",
    [
        (("status", 401), "auth: Error code: 401"),
        (GARBAGE, "bad_response: "),
    ],
)
def test_a_server_that_refuses_or_answers_garbage(reply, expected):
    pytest.importorskip("openai")
    from planloop.llm.fake_server import FakeChatServer

    with FakeChatServer([reply] * 3) as server:
        model = open_model(f"{server.url}@test-model")
        with pytest.raises(StudyError) as raised:
            check_model(model)
    message = one_line_error(raised)
    assert message.startswith(f"model test-model at {server.url} cannot answer: {expected}")
    assert len(server.requests) == 1  # neither is retried
    if reply is GARBAGE:
        assert "Bad Gateway" in message


def test_an_answering_server_passes_past_the_cache():
    pytest.importorskip("openai")
    from planloop.llm.fake_server import FakeChatServer

    with FakeChatServer([("ok", "OK")] * 2) as server:
        model = open_model(f"{server.url}@test-model")
        check_model(model)
        check_model(model)  # the same temperature-0 call: a cached answer would prove nothing
    assert len(server.requests) == 2
    assert server.requests[0]["messages"][0]["content"] == "Reply with the word OK."


def test_any_chat_model():
    model = ScriptedModel(["OK"], name="mine")
    check_model(model)
    assert model.calls == 1
    with pytest.raises(StudyError) as raised:
        check_model(ScriptedModel([LLMError("rate_limited", "slow down")], name="mine"))
    assert one_line_error(raised) == "model mine cannot answer: rate_limited: slow down"
    with pytest.raises(StudyError) as raised:
        check_model(ScriptedModel([], name="dry"))
    assert one_line_error(raised).startswith("model dry cannot answer: client: IndexError: ")


def test_a_person_is_not_checked():
    stdout = io.StringIO()
    check_model(InteractiveModel(stdin=io.StringIO(""), stdout=stdout))
    assert stdout.getvalue() == ""
