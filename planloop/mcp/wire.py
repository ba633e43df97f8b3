"""planloop-mcp over stdio, each message screened before the tools see it.

A message nested more than :data:`MAX_DEPTH` levels deep (the message object itself is
level 1, each array or object inside it one more) is answered at once with a JSON-RPC
error ``-32600`` (invalid request), and a line that is not JSON with ``-32700`` (parse
error). The error carries the request's id when the line names one at its top level
(else null), so that no client is left waiting; a notification or response nested too
deep is dropped, as JSON-RPC answers neither. A batch (a JSON array: MCP has none) and
a message whose ``id`` is not a string or an integer (an object, an array, null, a
boolean, a fraction) are answered with ``-32600`` too, each request of a batch under its
own id, before the SDK would read them (it drops an odd id and answers neither).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from io import TextIOWrapper
from typing import Any, BinaryIO, cast

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError, JSONRPCRequest
from pydantic import ValidationError

from .sandbox import MAX_DEPTH, shorten

_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[][{}]')  # JSON strings and brackets


def depth(value: Any) -> int:
    """How deep arrays and objects nest in ``value`` (a scalar: 0), counted without
    recursion and no further than :data:`MAX_DEPTH` + 1."""
    deepest, pending = 0, [(value, 1)]
    while pending:
        item, level = pending.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            if level <= MAX_DEPTH:
                children = item.values() if isinstance(item, dict) else item
                pending.extend((child, level + 1) for child in children)
    return deepest


def scan(line: str) -> tuple[int, Any]:
    """How deep ``line`` nests, and the id its top-level object names (None: none)."""
    deepest, level, found = 0, 0, None
    for token in _TOKENS.finditer(line):
        text = token.group()
        if text in ("[", "{"):
            level += 1
            deepest = max(deepest, level)
        elif text in ("]", "}"):
            level -= 1
        elif level == 1 and found is None and text == '"id"':
            value = line[token.end() :].lstrip()
            if value.startswith(":"):
                found = _scalar(value[1:].lstrip())
    return deepest, found


def _scalar(text: str) -> Any:
    """The string or integer ``text`` starts with, else None."""
    try:
        value, _ = json.JSONDecoder().raw_decode(text[:200])
    except ValueError:
        return None
    return value if isinstance(value, (str, int)) and not isinstance(value, bool) else None


def screen(item: SessionMessage | Exception) -> SessionMessage | Exception | JSONRPCError | None:
    """``item`` if the server may take it, else the error answering it (None: dropped)."""
    if isinstance(item, SessionMessage):
        levels = depth(item.message.model_dump(by_alias=True, exclude_unset=True))
        if levels <= MAX_DEPTH:
            return item
        if not isinstance(item.message, JSONRPCRequest):
            return None
        return _error(item.message.id, INVALID_REQUEST, _too_deep())
    errors = item.errors() if isinstance(item, ValidationError) else []
    if not errors or errors[0]["type"] != "json_invalid":
        return item  # the server logs it, as it did
    levels, found = scan(errors[0]["input"])
    if levels > MAX_DEPTH:
        return _error(found, INVALID_REQUEST, _too_deep())
    return _error(found, PARSE_ERROR, f"the message is not JSON: {shorten(errors[0]['msg'])}")


_BATCH = "batches (JSON arrays) are not taken: send one message a line"
_ODD_ID = "the id must be a string or an integer"


def refused(line: str) -> list[JSONRPCError] | None:
    """The errors answering ``line`` if it is a batch or its id is not a string or an
    integer, else None (it goes on to be parsed and screened)."""
    if scan(line)[0] > MAX_DEPTH:
        return None  # screened once parsed
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return None  # a parse error, answered once parsed
    if isinstance(value, list):
        ids = [item["id"] for item in value if isinstance(item, dict) and _is_id(item.get("id"))]
        return [_error(found, INVALID_REQUEST, _BATCH) for found in ids or [None]]
    if isinstance(value, dict) and "id" in value and not _is_id(value["id"]):
        return [_error(None, INVALID_REQUEST, _ODD_ID)]
    return None


def _is_id(value: Any) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def _too_deep() -> str:
    return f"the message nests arrays and objects more than {MAX_DEPTH} levels deep"


def _error(request_id: Any, code: int, message: str) -> JSONRPCError:
    return JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(code=code, message=message))


class Screened:
    """The transport's read stream, less what :func:`screen` refuses (answered on
    ``write``)."""

    def __init__(self, read, write):
        self._read, self._write = read, write

    @property
    def last_context(self):
        """The sender's context of the last message (the SDK's streams carry one)."""
        return getattr(self._read, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        while True:
            item = screen(await self._read.receive())
            if isinstance(item, JSONRPCError):
                await self._write.send(SessionMessage(item))
            elif item is not None:
                return item

    def __aiter__(self) -> Screened:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._read.aclose()

    async def __aenter__(self) -> Screened:
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self.aclose()


class Lines:
    """The client's lines from ``stdin``, less those :func:`refused` answers (on the
    write stream, once :meth:`answer_on` has named it)."""

    def __init__(self, stdin: BinaryIO):
        self._lines = anyio.wrap_file(TextIOWrapper(stdin, encoding="utf-8", errors="replace"))
        self._write: Any = None
        self._ready = anyio.Event()

    def answer_on(self, write) -> None:
        self._write = write
        self._ready.set()

    def __aiter__(self) -> Lines:
        return self

    async def __anext__(self) -> str:
        while True:
            line = await self._lines.readline()
            if not line:
                raise StopAsyncIteration
            answers = refused(line)
            if answers is None:
                return line
            await self._ready.wait()
            for answer in answers:
                await self._write.send(SessionMessage(answer))


@contextmanager
def claimed_stdin() -> Iterator[BinaryIO]:
    """The client's bytes on a private descriptor, with fd 0 pointed at the null device
    meanwhile (so that handlers and children read nothing of them), as the SDK does."""
    private = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    try:
        # never closed: a worker thread may still block reading it as the server ends
        yield os.fdopen(private, "rb", closefd=False)
    finally:
        os.dup2(private, 0)


def run_stdio(server: MCPServer) -> None:
    """Serve ``server`` over stdio until the client leaves, as ``server.run("stdio")``
    does, each line and message screened."""
    with claimed_stdin() as stdin:
        anyio.run(_serve_stdio, server, Lines(stdin))


async def _serve_stdio(server: MCPServer, lines: Lines) -> None:
    async with stdio_server(stdin=cast(anyio.AsyncFile[str], lines)) as (read, write):
        lines.answer_on(write)
        lowlevel = server._lowlevel_server  # what MCPServer.run_stdio_async runs
        await lowlevel.run(Screened(read, write), write, lowlevel.create_initialization_options())
