"""Headless Chromium (Debian's ``chromium``) over the DevTools protocol, for the tests
that open a page planloop writes; the ``chromium`` fixture is in conftest.py."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import websocket


class Chromium:
    """Headless Chromium over the DevTools protocol, one page. Script errors, console
    errors, dialogs (answered at once) and the page's requests are kept as they come."""

    def __init__(self, binary: str, profile: Path):
        self.profile = profile
        self.process = subprocess.Popen(
            [
                binary,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--remote-debugging-port=0",
                f"--user-data-dir={profile}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.socket, self.session, self.ids = None, None, 0
        self.errors, self.dialogs, self.requests = [], [], []

    def connect(self, timeout: float = 90.0) -> None:  # a loaded machine starts it slowly
        port_file, deadline = self.profile / "DevToolsActivePort", time.monotonic() + timeout
        while len(port_file.read_text().split() if port_file.exists() else ()) < 2:
            assert self.process.poll() is None, f"chromium exited: {self.process.returncode}"
            assert time.monotonic() < deadline, "chromium opened no DevTools port"
            time.sleep(0.05)
        port, path = port_file.read_text().split()[:2]
        self.socket = websocket.create_connection(
            f"ws://127.0.0.1:{port}{path}", timeout=timeout, suppress_origin=True
        )
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")

    def send(self, method: str, **params) -> int:
        self.ids += 1
        message = {"id": self.ids, "method": method, "params": params}
        self.socket.send(
            json.dumps(message | ({"sessionId": self.session} if self.session else {}))
        )
        return self.ids

    def call(self, method: str, **params) -> dict:
        sent = self.send(method, **params)
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == sent:
                assert "error" not in message, (method, message["error"])
                return message["result"]
            self._note(message.get("method"), message.get("params", {}))

    def _note(self, event: str | None, params: dict) -> None:
        if event == "Runtime.exceptionThrown":
            self.errors.append(params["exceptionDetails"])
        elif event == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert"):
            self.errors.append(params["args"])
        elif event == "Log.entryAdded" and params["entry"]["level"] == "error":
            self.errors.append(params["entry"])
        elif event == "Page.javascriptDialogOpening":
            self.dialogs.append(params["message"])
            self.send("Page.handleJavaScriptDialog", accept=True)
        elif event == "Network.requestWillBeSent":
            self.requests.append(params["request"]["url"])

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        assert "exceptionDetails" not in result, result["exceptionDetails"]
        return result["result"].get("value")

    def open(self, url: str, timeout: float = 30.0) -> None:
        self.call("Page.navigate", url=url)
        deadline = time.monotonic() + timeout
        while self.evaluate("document.readyState + ' ' + location.href") != f"complete {url}":
            assert time.monotonic() < deadline, f"{url} did not load"
            time.sleep(0.05)

    def close(self) -> None:
        if self.socket is not None:
            self.socket.close()
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
