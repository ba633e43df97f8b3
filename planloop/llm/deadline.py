"""A total deadline and a byte cap for an HTTP call, enforced at the socket.

A per-read timeout does not bound a call: a server that sends one byte a second never
trips it. ``within(deadline, max_bytes)`` sets a deadline (``time.monotonic()``
seconds) for the calls made inside it; through a ``DeadlineTransport`` every connect,
read and write waits at most ``min(its own timeout, time left)`` and times out once the
deadline has passed, however the server drips its headers or body. A response over
``max_bytes`` raises :class:`ReplyTooLarge` as the byte past the cap arrives, so no
reply is held whole whatever its size: the bytes on the wire (headers and body, every
attempt's) count, and so does a compressed body once decompressed (``Content-Encoding``
gzip, deflate, or any httpx decodes), decompressed a piece of at most 1 MiB at a
time, so a small bomb never becomes a large reply.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Callable, Iterator, TypeVar

from ..errors import PlanloopError

# Only one httpx generation is installed, the one the openai client needs: the other's
# import is not found, so these lines ignore import-not-found as well as the redefinition.
try:  # the httpx generation the installed openai client uses
    import httpcore2 as httpcore  # type: ignore[import-not-found, unused-ignore]
    import httpx2 as httpx  # type: ignore[import-not-found, unused-ignore]
except ImportError:  # pragma: no cover - openai 1.x and 2.x use httpx
    import httpcore  # type: ignore[no-redef, import-not-found, unused-ignore]
    import httpx  # type: ignore[no-redef, import-not-found, unused-ignore]

_DEADLINE: ContextVar[float | None] = ContextVar("planloop_llm_deadline", default=None)
_BUDGET: ContextVar[_Budget | None] = ContextVar("planloop_llm_bytes_left", default=None)
T = TypeVar("T")


class ReplyTooLarge(PlanloopError):
    """A server sent more than the bytes a call may read (``decompressed``: its reply
    decompressed to more)."""

    def __init__(self, max_bytes: int, decompressed: bool = False):
        self.max_bytes = max_bytes
        what = "a reply that decompresses to more than" if decompressed else "more than"
        super().__init__(
            f"the server sent {what} {max_bytes:,} bytes (max_reply_bytes): refused unread"
        )


class _Budget:
    """The bytes a call may still read: on the wire, and once decompressed."""

    def __init__(self, max_bytes: int):
        self.max_bytes, self.wire, self.decoded = max_bytes, max_bytes, max_bytes

    def read(self, count: int) -> None:
        self.wire -= count
        if self.wire < 0:
            raise ReplyTooLarge(self.max_bytes)

    def decompressed(self, count: int) -> None:
        self.decoded -= count
        if self.decoded < 0:
            raise ReplyTooLarge(self.max_bytes, decompressed=True)


@contextmanager
def within(deadline: float, max_bytes: int | None = None) -> Iterator[None]:
    """Calls through a ``DeadlineTransport`` in this block end by ``deadline`` and read
    at most ``max_bytes`` (None: no cap) in all."""
    token = _DEADLINE.set(deadline)
    left = _BUDGET.set(None if max_bytes is None else _Budget(max_bytes))
    try:
        yield
    finally:
        _DEADLINE.reset(token)
        _BUDGET.reset(left)


def _bounded(
    operation: Callable[[float | None], T], timeout: float | None, error: type[Exception]
) -> T:
    deadline = _DEADLINE.get()
    if deadline is None:
        return operation(timeout)
    left = deadline - time.monotonic()
    if left <= 0:
        raise error("the call's deadline has passed")
    return operation(left if timeout is None else min(timeout, left))


class _Stream(httpcore.NetworkStream):
    def __init__(self, stream: httpcore.NetworkStream):
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        data = _bounded(lambda t: self._stream.read(max_bytes, t), timeout, httpcore.ReadTimeout)
        budget = _BUDGET.get()
        if budget is not None:
            budget.read(len(data))
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        _bounded(lambda t: self._stream.write(buffer, t), timeout, httpcore.WriteTimeout)

    def close(self) -> None:
        self._stream.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        stream = _bounded(
            lambda t: self._stream.start_tls(ssl_context, server_hostname, t),
            timeout,
            httpcore.ConnectTimeout,
        )
        return _Stream(stream)

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    def __init__(self) -> None:
        self._backend = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore.NetworkStream:
        return _Stream(
            _bounded(
                lambda t: self._backend.connect_tcp(host, port, t, local_address, socket_options),
                timeout,
                httpcore.ConnectTimeout,
            )
        )


class DeadlineTransport(httpx.HTTPTransport):
    """httpx's transport over a connection pool whose sockets honour ``within``. (A client
    given a transport uses no proxy from the environment.)"""

    def __init__(self, limits: httpx.Limits):
        # The one reach into httpx internals: HTTPTransport takes no network backend, and
        # its __init__ only builds its (private) pool, so this builds that pool instead,
        # with deadline-bound sockets. httpx still maps requests, responses and errors.
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=_Backend(),
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """The response, its body decompressed here, counted (see the module docstring):
        httpx's own decoders, a piece at a time; the response says no encoding."""
        response = super().handle_request(request)
        budget = _BUDGET.get()
        encodings = response.headers.get_list("content-encoding", split_commas=True)
        if budget is None or all(e.strip().lower() in ("", "identity") for e in encodings):
            return response
        headers = [
            (name, value)
            for name, value in response.headers.raw
            if name.lower() not in (b"content-encoding", b"content-length")
        ]
        return httpx.Response(
            response.status_code,
            headers=headers,
            stream=_Decompressed(response, budget),
            extensions=response.extensions,
        )


class _Decompressed(httpx.SyncByteStream):
    """The body of ``response`` decompressed, each piece charged to ``budget``."""

    def __init__(self, response: httpx.Response, budget: _Budget):
        self._response, self._budget = response, budget

    def __iter__(self) -> Iterator[bytes]:
        for piece in self._response.iter_bytes():
            self._budget.decompressed(len(piece))
            yield piece

    def close(self) -> None:
        self._response.close()
