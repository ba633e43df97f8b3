"""A small OpenAI-compatible chat server on 127.0.0.1 that answers from a script."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeChatServer:
    """``script`` items: ``("ok", text)``, ``("status", code)``, ``("slow", seconds,
    text)`` or ``("tool", name, arguments_json)``; ``requests`` keeps every body."""

    def __init__(self, script):
        self.script = list(script)
        self.requests: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(body)
                kind, *rest = server.script.pop(0) if server.script else ("status", 500)
                if kind == "status":
                    return self._send(rest[0], {"error": {"message": f"scripted {rest[0]}"}})
                if kind == "slow":
                    time.sleep(rest[0])
                    rest = rest[1:]
                message = {"role": "assistant", "content": rest[0] if kind != "tool" else None}
                if kind == "tool":
                    message["tool_calls"] = [{"id": "call_1", "type": "function",
                                              "function": {"name": rest[0],
                                                           "arguments": rest[1]}}]
                self._send(200, {"id": "x", "object": "chat.completion", "created": 0,
                                 "model": body["model"],
                                 "choices": [{"index": 0, "message": message,
                                              "finish_reason": "stop"}],
                                 "usage": {"prompt_tokens": 11, "completion_tokens": 7,
                                           "total_tokens": 18}})

            def _send(self, code, payload):
                data = json.dumps(payload).encode()
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (a timeout test)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._httpd.shutdown()
        self._httpd.server_close()
