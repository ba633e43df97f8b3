"""The model of a study: opened from ``--llm`` and checked before the first episode,
with every way that fails said in one line (a StudyError)."""

from __future__ import annotations

import copy
from typing import Any

from ..llm import (
    CachedModel,
    ChatModel,
    InteractiveModel,
    LLMError,
    OpenAIChat,
    call_model,
    make_model,
)
from .errors import StudyError, one_line
from .flags import RequestSettings

CHECK_MESSAGES = [{"role": "user", "content": "Reply with the word OK."}]
_HINTS = {
    "connection": " (is the server running?)",
    "auth": " (check OPENAI_API_KEY, or the key the server expects)",
    "timeout": " (the server did not answer in time)",
}


def open_model(
    spec: str | None,
    call_timeout: float | None = None,
    request: RequestSettings | None = None,
) -> ChatModel:
    """``planloop.llm.make_model(spec)``; a spec it cannot read, a missing
    OPENAI_API_KEY, a missing ``openai`` package or any other failure is a StudyError.
    ``call_timeout``: the longest one call to a server may take, its retries included
    (an OpenAIChat's ``deadline``, whose own default grows with its retries).
    ``request``: the parameters its calls send (see :func:`with_request`)."""
    if not spec:
        raise StudyError("--llm is required: openai:MODEL, URL@MODEL or interactive")
    request = request or RequestSettings()
    try:
        params: dict[str, Any] = dict(request.set)
        model = make_model(spec, defaults=dict(request.defaults), **params)
    except ValueError as exc:  # the spec
        raise StudyError(one_line(exc)) from None
    except LLMError as exc:
        if exc.kind == "auth":
            raise StudyError(
                f"{spec} needs an API key: set OPENAI_API_KEY (or use URL@MODEL for a local server)"
            ) from None
        raise StudyError(f"cannot open model {spec}: {one_line(exc)}") from None
    except ImportError as exc:
        raise StudyError(
            f"{spec} needs the openai client: pip install 'planloop[llm]' ({one_line(exc)})"
        ) from None
    except Exception as exc:
        raise StudyError(
            f"cannot open model {spec}: {type(exc).__name__}: {one_line(exc)}"
        ) from None
    inner = model.model if isinstance(model, CachedModel) else model
    if call_timeout is not None and isinstance(inner, OpenAIChat):
        inner.deadline = call_timeout
    return model


def with_request(model: ChatModel, request: RequestSettings) -> ChatModel:
    """``model`` sending ``request`` (the parameters set and the defaults): a copy of an
    OpenAIChat (cached or not) that shares what its original learned (the defaults the
    model refused); any other model as it is."""
    inner = model.model if isinstance(model, CachedModel) else model
    if not isinstance(inner, OpenAIChat):
        return model
    configured = copy.copy(inner)
    configured.params, configured.defaults = dict(request.set), dict(request.defaults)
    if isinstance(model, CachedModel):
        return CachedModel(configured, model.path, model.always)
    return configured


def study_model(
    given: ChatModel | None,
    spec: str | None,
    call_timeout: float | None,
    request: RequestSettings,
) -> tuple[ChatModel, ChatModel | None]:
    """(the study's model, the model to check before its first episode, or None): the
    model ``given`` to the script's ``main`` (by ``reproduce.py`` or a test) sending
    ``request``, else one opened from ``spec``. A model opened here is checked, and so is
    a given server model once the user set a request parameter (which it may refuse)."""
    if given is None:
        built = open_model(spec, call_timeout, request)
        return built, built
    model = with_request(given, request)
    return model, model if request.set and model is not given else None


def check_model(model: ChatModel, timeout: float = 20.0) -> None:
    """One tiny call (through ``call_model``, past any cache) that shows the model
    answers; a StudyError naming the model, the failure's kind and its reason when it
    does not. An OpenAIChat is probed with at most one retry, within ``timeout`` seconds
    in all (a closed port fails in about a second), leaving the retries of the episodes
    as they are. An interactive model (a person) is not checked."""
    inner = model.model if isinstance(model, CachedModel) else model
    if isinstance(inner, InteractiveModel):
        return
    probe = inner
    if isinstance(inner, OpenAIChat):
        probe = copy.copy(inner)  # only the retry bounds differ
        probe.max_retries, probe.deadline = 1, timeout
    try:
        call_model(probe, CHECK_MESSAGES)
    except LLMError as exc:
        where = f" at {url}" if (url := getattr(inner, "base_url", None)) else ""
        raise StudyError(
            f"model {getattr(inner, 'name', type(inner).__name__)}{where} cannot "
            f"answer: {one_line(exc)}{_HINTS.get(exc.kind, '')}"
        ) from None
