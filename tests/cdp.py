"""Drive headless Chromium over the DevTools protocol on a pipe (``--remote-debugging-pipe``: the
browser reads commands on its fd 3 and writes replies and events on its fd 4, each a JSON message
ended by a NUL byte). No package beyond the standard library; used by the browser tests and by
``benchmarks/report.py`` to time the interactive map."""

from __future__ import annotations

import base64
import json
import os
import queue
import shutil
import subprocess
import threading
import time
from pathlib import Path

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--no-default-browser-check"]


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Page:
    """One browser with one tab. Every network request the tab starts is kept in ``requests``."""

    def __init__(self, profile: Path, *, width: int = 1280, height: int = 800, offline: bool = True) -> None:
        to_browser, self._write = os.pipe()
        self._read, from_browser = os.pipe()

        def wire() -> None:  # the browser's fds 3 and 4, whatever numbers the pipes got here
            os.dup2(to_browser, 200)
            os.dup2(from_browser, 201)
            os.dup2(200, 3)
            os.dup2(201, 4)

        path = chromium_path()
        if path is None:
            raise RuntimeError("chromium is not installed: `apt-get install chromium` (.ci/run does it)")
        self.proc = subprocess.Popen([path, *FLAGS, "--remote-debugging-pipe", f"--user-data-dir={profile}"],
                                     preexec_fn=wire, pass_fds=(3, 4), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        os.close(to_browser)
        os.close(from_browser)
        self._next = 0
        self._replies: dict[int, queue.Queue] = {}
        self.events: list[dict] = []
        self.requests: list[str] = []
        threading.Thread(target=self._listen, daemon=True).start()
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Network"):
            self.call(f"{domain}.enable", session=True)
        if offline:
            self.call("Network.emulateNetworkConditions", {"offline": True, "latency": 0, "downloadThroughput": -1,
                                                           "uploadThroughput": -1}, session=True)
        self.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1,
                                                         "mobile": False}, session=True)

    def _listen(self) -> None:
        buffer = b""
        while True:
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                return
            buffer += chunk
            while b"\0" in buffer:
                raw, buffer = buffer.split(b"\0", 1)
                message = json.loads(raw)
                if "id" in message and message["id"] in self._replies:
                    self._replies[message["id"]].put(message)
                else:
                    self.events.append(message)
                    if message.get("method") == "Network.requestWillBeSent":
                        self.requests.append(message["params"]["request"]["url"])

    def call(self, method: str, params: dict | None = None, *, session: bool = False, timeout: float = 60) -> dict:
        self._next += 1
        ident = self._next
        self._replies[ident] = queue.Queue()
        message = {"id": ident, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        reply = self._replies[ident].get(timeout=timeout)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def evaluate(self, expression: str) -> object:
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True},
                           session=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def open(self, url: str, ready: str = "document.readyState === 'complete'", timeout: float = 60) -> float:
        """Navigate and wait until the ``ready`` expression is true; seconds it took."""
        start = time.perf_counter()
        self.call("Page.navigate", {"url": url}, session=True)
        while time.perf_counter() - start < timeout:
            try:
                if self.evaluate(ready):
                    return time.perf_counter() - start
            except RuntimeError:
                pass  # the page is still being replaced
            time.sleep(0.02)
        raise TimeoutError(f"{url}: not ready after {timeout} s")

    def mouse(self, x: float, y: float, kind: str = "mouseMoved") -> None:
        self.call("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "none" if kind == "mouseMoved"
                                               else "left", "clickCount": 0 if kind == "mouseMoved" else 1}, session=True)

    def screenshot(self, path: Path) -> None:
        data = self.call("Page.captureScreenshot", {"format": "png"}, session=True)["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=10)
        except (RuntimeError, queue.Empty, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self._write)

    def __enter__(self) -> Page:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
