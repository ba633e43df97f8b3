"""call_model: whatever a model raises or returns, the caller gets a ChatResponse or an
LLMError."""

import pytest

from planloop.llm import ChatResponse, LLMError, ScriptedModel, ToolCall, Usage, call_model

from conftest import BrokenModel as Model

HELLO = [{"role": "user", "content": "hello"}]


@pytest.mark.parametrize(
    "model, message",
    [
        (ScriptedModel([]), "IndexError: the script has 0 replies"),
        (Model(error=ConnectionResetError("peer reset")), "ConnectionResetError: peer reset"),
        (Model(error=KeyError("choices")), "KeyError: 'choices'"),
    ],
    ids=["script_run_dry", "network", "own_bug"],
)
def test_what_a_model_raises_becomes_a_client_error(model, message):
    with pytest.raises(LLMError) as err:
        call_model(model, HELLO)
    assert err.value.kind == "client" and str(err.value).startswith(f"client: {message}")


def test_an_llm_error_passes_through_unchanged():
    failure = LLMError("timeout", "too slow")
    with pytest.raises(LLMError) as err:
        call_model(Model(error=failure), HELLO)
    assert err.value is failure


@pytest.mark.parametrize(
    "reply",
    [
        None,
        "a plan",
        ChatResponse(None),
        ChatResponse(42),
        ChatResponse("x", usage="lots"),
        ChatResponse("x", tool_calls=[ToolCall("c", "act", "{}")]),
        ChatResponse("x", tool_calls=("act",)),
    ],
    ids=["none", "str", "text_none", "text_number", "usage_str", "calls_list", "call_str"],
)
def test_what_is_not_a_chat_response_with_text_is_a_bad_response(reply):
    with pytest.raises(LLMError) as err:
        call_model(Model(reply), HELLO)
    assert err.value.kind == "bad_response" and "broken returned" in str(err.value)


def test_a_good_reply_passes_through():
    good = ChatResponse("ok", (ToolCall("c", "act", "{}"),), Usage(1, 2, 3, 0.1))
    scripted = ScriptedModel([good])
    assert call_model(scripted, HELLO, tools=[], temperature=0.5) is good
    assert scripted.prompts == [HELLO]
