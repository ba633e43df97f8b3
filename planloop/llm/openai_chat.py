"""Chat through the ``openai`` client: OpenAI itself or any OpenAI-compatible server
(vLLM, Ollama, llama.cpp's server), with bounded exponential backoff, ``Retry-After``
and a total deadline per call."""

from __future__ import annotations

import math
import os
import random
import time
from collections.abc import Mapping
from email.utils import parsedate_to_datetime
from typing import Any, TypedDict, cast

from .base import ChatResponse, LLMError, LLMErrorKind
from .reply import excerpt, parse_reply
from .requests import REQUEST_PARAMS, build_request, refused_parameter
from .sent import note_sent

DEFAULTS = {"temperature": 0.0}  # planloop's own: sent where the model takes them
MAX_REPLY_BYTES = 8 * 2**20  # what one call may read from a server (headers included) and
# what a compressed reply may decompress to; an OpenAIChat's max_reply_bytes
_RETRIED = ("rate_limited", "server", "timeout", "connection")


class RequestRecord(TypedDict):
    """:meth:`OpenAIChat.request_record`."""

    sent: dict[str, object]
    dropped: list[str]
    served_model: str | None


class OpenAIChat:
    """``complete(messages, tools=None, **params)`` with retries on rate limits, server
    errors, timeouts and dropped connections; what still fails raises LLMError, and so
    does a reply that is not a well-formed chat completion (``bad_response``).

    What bounds a call: ``timeout`` bounds each connect, read and write; ``deadline``
    bounds the whole call (every attempt, every read, every pause between attempts),
    by default ``(max_retries + 1) * timeout`` plus the backoff pauses. A call past its
    deadline raises ``LLMError("timeout")``. A 429 or 503 asking (``Retry-After``,
    ``retry-after-ms``) for a pause is paused for as asked, unless that is longer than
    ``max_retry_after`` seconds or than the time left, which raises
    ``LLMError("rate_limited")`` at once. A reply over ``max_reply_bytes``
    (:data:`MAX_REPLY_BYTES`, 8 MiB, headers included), on the wire or once
    decompressed (a gzip or deflate body is decompressed a piece at a time and counted),
    is refused as it arrives (``bad_response``, not retried), and a server's error is quoted in an LLMError up to
    :data:`ERROR_EXCERPT` characters, so a call holds and records a bounded amount
    whatever the server sends.

    Request parameters (see :mod:`planloop.llm.requests`): ``params`` (temperature,
    top_p, frequency and presence penalties, reasoning_effort, seed, max_tokens,
    max_completion_tokens, stop) are the ones the user set, always sent; ``defaults``
    (planloop's :data:`DEFAULTS` unless given: temperature 0) and a call's own
    parameters that the user did not set are sent where the model takes them. A 400
    refusing such a default drops it for the rest of the run (``dropped``, shared with
    this model's copies) and the call is made again; a 400 refusing a parameter the
    user set raises ``LLMError("bad_request")`` naming it. Each request's parameters
    are noted where a :func:`~planloop.llm.sent.recording` block asks (what a study's
    episode sent); :meth:`request_record` says what a call of no parameter of its own
    sends, what was dropped and which model the server said answered.

    A copy (``copy.copy``, or a pickle sent to a Ray worker) opens its own client; an
    ``api_key`` not given here is read from OPENAI_API_KEY where the copy is made.
    """

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        max_retries: int = 5,
        backoff: float = 1.0,
        max_backoff: float = 30.0,
        timeout: float = 120.0,
        deadline: float | None = None,
        max_retry_after: float = 60.0,
        defaults: Mapping[str, object] | None = None,
        **params,
    ):
        unknown = (set(params) | set(defaults or {})) - set(REQUEST_PARAMS)
        if unknown:
            raise ValueError(f"unknown model parameters: {sorted(unknown)}")
        self.name = model
        self.base_url = base_url
        self.params = dict(params)
        self.defaults = dict(DEFAULTS if defaults is None else defaults)
        self.learned: dict = {"dropped": {}, "served_model": None}  # shared with copies
        self.max_retries, self.backoff, self.max_backoff = max_retries, backoff, max_backoff
        self.max_retry_after = max_retry_after
        self.max_reply_bytes = MAX_REPLY_BYTES
        if deadline is None:
            deadline = (max_retries + 1) * timeout + sum(map(self._backoff, range(max_retries)))
        self.deadline = deadline
        self._api_key, self._timeout = api_key, timeout
        self._connect()

    def _connect(self) -> None:
        import openai  # imported here so that planloop works without the extra

        from .deadline import DeadlineTransport  # needs httpx, which comes with openai

        key = (
            self._api_key
            or os.environ.get("OPENAI_API_KEY")
            or ("local" if self.base_url else None)
        )
        if key is None:
            raise LLMError("auth", "OPENAI_API_KEY is not set")
        self._openai = openai
        http_client = openai.DefaultHttpxClient(
            transport=DeadlineTransport(openai.DEFAULT_CONNECTION_LIMITS)
        )
        self._client = openai.OpenAI(
            api_key=key,
            base_url=self.base_url,
            timeout=self._timeout,
            max_retries=0,
            http_client=http_client,
        )

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in ("_openai", "_client")}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._connect()

    def request(self, params: Mapping[str, object] | None = None) -> dict[str, object]:
        """The parameters a call with ``params`` of its own sends now."""
        return build_request(
            self.name, self.defaults, self.params, params or {}, self.learned["dropped"]
        )

    def request_record(self) -> RequestRecord:
        """``{"sent": what a call that sets no parameter of its own sends, "dropped":
        defaults the model refused, "served_model": the model the server last said
        answered}``. What calls did send is in a :func:`~planloop.llm.sent.recording`
        block's log."""
        return {
            "sent": self.request(),
            "dropped": sorted(self.learned["dropped"]),
            "served_model": self.learned["served_model"],
        }

    def complete(
        self, messages: list[dict], tools: list[dict] | None = None, **params
    ) -> ChatResponse:
        from .deadline import within

        start = time.monotonic()
        attempt = 0
        with within(start + self.deadline, self.max_reply_bytes):
            while True:
                request = self.request(params)
                note_sent(request)
                try:
                    raw = self._client.chat.completions.with_raw_response.create(
                        model=self.name,
                        # plain dicts of the shape the SDK's TypedDicts describe
                        messages=cast(Any, messages),
                        **cast(Any, {**request, "tools": tools} if tools else request),
                    )
                except Exception as exc:  # classified below; anything else is re-raised
                    kind = self._kind(exc)
                    if kind is None:
                        raise
                    if kind == "bad_request" and self._drop_refused(exc, request, params):
                        continue  # the same attempt, without the refused default
                    time.sleep(self._pause(kind, exc, attempt, start))
                    attempt += 1
                else:
                    reply = parse_reply(raw.content, self.name, time.monotonic() - start)
                    self.learned["served_model"] = reply.model
                    return reply

    def _drop_refused(self, exc: Exception, request: Mapping[str, object], params) -> bool:
        """Whether ``exc`` (a 400) refuses a default of ``request``, now dropped; a
        refused parameter the user set raises a bad_request naming it."""
        name = refused_parameter(getattr(exc, "param", None), _error_message(exc), request)
        if name is None:
            return False
        said = excerpt(str(_error_message(exc)).encode())
        if name in self.params:
            raise LLMError(
                "bad_request",
                f"{self.name} refuses {name}={request[name]!r}, which was set for this "
                f"run: the server said {said}",
            ) from exc
        if name in self.learned["dropped"]:
            return False  # refused again (a server that names a parameter not sent)
        self.learned["dropped"][name] = said
        return True

    def _pause(self, kind: LLMErrorKind, exc: Exception, attempt: int, start: float) -> float:
        """Seconds to wait before the next attempt; raises LLMError when there is none."""
        if kind not in _RETRIED:
            raise LLMError(kind, _shown(exc)) from exc
        spent = f"{time.monotonic() - start:.1f} s of the {self.deadline:g} s deadline spent"
        if attempt == self.max_retries:
            raise LLMError(kind, f"{_shown(exc)} (after {attempt + 1} attempts; {spent})") from exc
        left = start + self.deadline - time.monotonic()
        response = getattr(exc, "response", None)
        asked = (
            retry_after(response.headers)
            if response is not None and response.status_code in (429, 503)
            else None
        )
        if asked is not None:
            if asked > min(self.max_retry_after, left):
                raise LLMError(
                    "rate_limited",
                    f"{_shown(exc)} (the server asked to wait {asked:g} s; "
                    f"max_retry_after is {self.max_retry_after:g} s,"
                    f" {spent})",
                ) from exc
            return asked
        pause = self._backoff(attempt) * (0.5 + random.random() / 2)
        if pause >= left:
            raise LLMError(
                kind, f"{_shown(exc)} (no time left for another attempt: {spent})"
            ) from exc
        return pause

    def _backoff(self, attempt: int) -> float:
        return min(self.max_backoff, self.backoff * 2**attempt)

    def _kind(self, exc: Exception) -> LLMErrorKind | None:
        from .deadline import ReplyTooLarge

        o = self._openai
        if _caused_by(exc, ReplyTooLarge):
            return "bad_response"
        if isinstance(exc, o.RateLimitError):
            return "rate_limited"
        if isinstance(exc, o.InternalServerError):
            return "server"
        if isinstance(exc, o.APITimeoutError):
            return "timeout"
        if isinstance(exc, o.APIConnectionError):
            return "connection"
        if isinstance(exc, o.AuthenticationError):
            return "auth"
        if isinstance(exc, o.APIStatusError):
            return "server" if exc.status_code >= 500 else "bad_request"
        if isinstance(exc, o.OpenAIError):
            return "other"
        return None


ERROR_EXCERPT = 500  # characters of a server's error quoted in an LLMError


def _shown(exc: Exception) -> str:
    """``exc`` as text, cut to :data:`ERROR_EXCERPT` characters (a server's error
    body may be megabytes)."""
    text = str(exc)
    return text if len(text) <= ERROR_EXCERPT else text[:ERROR_EXCERPT] + "... (cut)"


def _caused_by(exc: BaseException, kind: type[BaseException]) -> bool:
    """Whether ``exc`` or an exception in its chain of causes is a ``kind``."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, kind):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def _error_message(exc: Exception) -> object:
    """The ``error.message`` of a status error's JSON body, else None."""
    body = getattr(exc, "body", None)
    return body.get("message") if isinstance(body, dict) else None


def retry_after(headers: Mapping[str, str]) -> float | None:
    """The pause in seconds a server asked for (``retry-after-ms``, or ``Retry-After`` as
    seconds or an HTTP date), or None when it asked for none or nonsense."""
    headers = {key.lower(): value for key, value in headers.items()}
    try:
        if "retry-after-ms" in headers:
            seconds = float(headers["retry-after-ms"]) / 1000
        elif "retry-after" not in headers:
            return None
        elif headers["retry-after"].strip().replace(".", "", 1).isdigit():
            seconds = float(headers["retry-after"])
        else:
            seconds = max(
                0.0, parsedate_to_datetime(headers["retry-after"]).timestamp() - time.time()
            )
    except (ValueError, TypeError, OverflowError):
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None
