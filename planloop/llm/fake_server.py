"""A local OpenAI-compatible chat server that answers from a script: a test double for
the model client, and a target for fuzzing it. No network beyond 127.0.0.1.

Script items, one per request (a request past the end gets a 500):

- ``("ok", text)``: a chat completion whose message content is ``text``;
- ``("tool", name, arguments_json)``: a completion with one tool call;
- ``("slow", seconds, text)``: ``("ok", text)`` after ``seconds``;
- ``("status", code)`` or ``("status", code, headers)``: an error JSON body;
- ``("json", payload)``: a 200 whose whole body is ``payload`` as JSON;
- ``("raw", status, headers, body)``: exactly these bytes and headers (Content-Length
  is computed unless ``headers`` set it);
- ``("drip", body, seconds_per_byte)``: a 200 JSON reply sent one byte at a time.

``rules`` (optional) answers a request it refuses before the script is read: a function
of the request body returning an OpenAI error object (sent as a 400) or None.
:func:`openai_rules` refuses what OpenAI's API refuses of its reasoning models;
:func:`refusing` is a gateway that refuses parameters by name.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .requests import is_reasoning_model

Rules = Callable[[dict], "dict | None"]


def _refusal(param: str, message: str, code: str) -> dict:
    return {"message": message, "type": "invalid_request_error", "param": param, "code": code}


def openai_rules(no_sampling: bool = False) -> Rules:
    """What OpenAI's API answers a request to one of its reasoning models (o1, o3, o4,
    gpt-5; see :func:`~planloop.llm.requests.is_reasoning_model`): ``max_tokens`` is an
    unsupported parameter; a ``temperature`` or ``top_p`` other than 1 an unsupported
    value (``no_sampling``: any temperature or top_p an unsupported parameter, as o1
    answers). Other models take everything."""

    def check(body: dict) -> dict | None:
        if not is_reasoning_model(str(body.get("model", ""))):
            return None
        if "max_tokens" in body:
            return _refusal(
                "max_tokens",
                "Unsupported parameter: 'max_tokens' is not supported with this model. "
                "Use 'max_completion_tokens' instead.",
                "unsupported_parameter",
            )
        for name in ("temperature", "top_p"):
            if name not in body:
                continue
            if no_sampling:
                return _refusal(
                    name,
                    f"Unsupported parameter: '{name}' is not supported with this model.",
                    "unsupported_parameter",
                )
            if body[name] != 1:
                return _refusal(
                    name,
                    f"Unsupported value: '{name}' does not support {body[name]} with this "
                    "model. Only the default (1) value is supported.",
                    "unsupported_value",
                )
        return None

    return check


def refusing(*names: str) -> Rules:
    """A gateway that refuses the parameters ``names`` (named in ``param``)."""

    def check(body: dict) -> dict | None:
        for name in names:
            if name in body:
                return _refusal(name, f"Unsupported parameter: '{name}'", "unsupported_parameter")
        return None

    return check


def completion(model: str, message: dict) -> dict:
    """A well-formed chat completion body holding ``message``."""
    return {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }


class FakeChatServer:
    """Serves ``script`` (see the module docstring) while used as a context manager;
    ``url`` is the base URL to give the client, ``requests`` keeps every request body
    (parsed JSON, or the text when it is not JSON)."""

    def __init__(self, script: list[tuple], rules: Rules | None = None):
        self.script = list(script)
        self.requests: list[Any] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                refused = rules(body) if rules and isinstance(body, dict) else None
                item: tuple
                with server._lock:
                    server.requests.append(body)
                    if refused is not None:
                        item = ("raw", 400, {}, json.dumps({"error": refused}).encode())
                    else:
                        item = server.script.pop(0) if server.script else ("status", 500)
                model = body.get("model", "fake") if isinstance(body, dict) else "fake"
                try:
                    self._answer(item, model)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (a timeout test)

            def _answer(self, item: tuple, model: str) -> None:
                kind, *rest = item
                if kind == "status":
                    error = {"error": {"message": f"scripted {rest[0]}"}}
                    self._send(
                        rest[0], json.dumps(error).encode(), rest[1] if len(rest) > 1 else {}
                    )
                elif kind == "json":
                    self._send(200, json.dumps(rest[0]).encode())
                elif kind == "raw":
                    self._send(rest[0], rest[2], rest[1])
                elif kind == "drip":
                    self._drip(rest[0], rest[1])
                elif kind in ("ok", "slow"):
                    if kind == "slow" and server._stopping.wait(rest.pop(0)):
                        return
                    message = {"role": "assistant", "content": rest[0]}
                    self._send(200, json.dumps(completion(model, message)).encode())
                elif kind == "tool":
                    message = {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "call_1",
                                "type": "function",
                                "function": {"name": rest[0], "arguments": rest[1]},
                            }
                        ],
                    }
                    self._send(200, json.dumps(completion(model, message)).encode())
                else:
                    raise ValueError(f"unknown script item {item!r}")

            def _send(self, code: int, data: bytes, headers: dict | None = None) -> None:
                headers = {"Content-Type": "application/json", **(headers or {})}
                if not any(k.lower() == "content-length" for k in headers):
                    headers["Content-Length"] = str(len(data))
                self.send_response(code)
                for key, value in headers.items():
                    self.send_header(key, str(value))
                self.end_headers()
                self.wfile.write(data)

            def _drip(self, data: bytes, seconds_per_byte: float) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.flush()
                for i in range(len(data)):
                    if server._stopping.wait(seconds_per_byte):
                        return
                    self.wfile.write(data[i : i + 1])
                    self.wfile.flush()

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def __enter__(self) -> "FakeChatServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
