"""planloop-mcp over stdio, each message screened before the tools see it.

A message nested more than :data:`MAX_DEPTH` levels deep (the message object itself is
level 1, each array or object inside it one more) is answered at once with a JSON-RPC
error ``-32600`` (invalid request), and a line that is not JSON with ``-32700`` (parse
error). The error carries the request's id when the line names one at its top level
(else null), so that no client is left waiting; a notification or response nested too
deep is dropped, as JSON-RPC answers neither.
"""

from __future__ import annotations

import json
import re
from typing import Any

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


def run_stdio(server: MCPServer) -> None:
    """Serve ``server`` over stdio until the client leaves, as ``server.run("stdio")``
    does, each message screened."""
    anyio.run(_serve_stdio, server)


async def _serve_stdio(server: MCPServer) -> None:
    async with stdio_server() as (read, write):
        lowlevel = server._lowlevel_server  # what MCPServer.run_stdio_async runs
        await lowlevel.run(Screened(read, write), write, lowlevel.create_initialization_options())
