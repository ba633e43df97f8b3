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
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


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

    def __init__(self, script: list[tuple]):
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
                with server._lock:
                    server.requests.append(body)
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
