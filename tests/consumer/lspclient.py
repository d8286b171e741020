"""A headless LSP client for yaml-language-server: open documents, collect publishDiagnostics.

Settings reach the server the way an editor sends them: the client declares
`workspace/configuration` and answers the server's requests for the "yaml" section.
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from pathlib import Path


class YamlLanguageServer:
    def __init__(self, modules: Path, settings: dict):
        server = modules / "yaml-language-server" / "bin" / "yaml-language-server"
        self.settings = settings
        self.process = subprocess.Popen(
            ["node", str(server), "--stdio"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.messages: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self._request(
            1,
            "initialize",
            {
                "processId": None,
                "rootUri": None,
                "capabilities": {
                    "workspace": {"configuration": True},
                    "textDocument": {"publishDiagnostics": {}},
                },
            },
        )
        self._wait_for(lambda m: m.get("id") == 1, 30)
        self._notify("initialized", {})
        self._notify("workspace/didChangeConfiguration", {"settings": {"yaml": settings}})

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            headers = {}
            while True:
                line = stream.readline()
                if not line:
                    self.messages.put(None)
                    return
                text = line.decode().strip()
                if not text:
                    break
                name, _, value = text.partition(":")
                headers[name.lower()] = value.strip()
            self.messages.put(json.loads(stream.read(int(headers["content-length"]))))

    def _send(self, message: dict) -> None:
        data = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        self.process.stdin.flush()

    def _request(self, ident: int, method: str, params: dict) -> None:
        self._send({"id": ident, "method": method, "params": params})

    def _notify(self, method: str, params: dict) -> None:
        self._send({"method": method, "params": params})

    def _answer(self, message: dict) -> None:
        """Reply to a request from the server (settings; anything else gets null)."""
        result = None
        if message["method"] == "workspace/configuration":
            result = [
                self.settings if item.get("section") == "yaml" else None
                for item in message["params"]["items"]
            ]
        self._send({"id": message["id"], "result": result})

    def _wait_for(self, predicate, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                message = self.messages.get(timeout=0.5)
            except queue.Empty:
                continue
            if message is None:
                raise RuntimeError("yaml-language-server exited")
            if "method" in message and "id" in message:
                self._answer(message)
            if predicate(message):
                return message
        raise TimeoutError("no answer from yaml-language-server")

    def diagnostics(self, path: Path, timeout: float = 30) -> list[dict]:
        """didOpen the file, then its publishDiagnostics (the server validates on open)."""
        uri = path.resolve().as_uri()
        self._notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": uri,
                    "languageId": "yaml",
                    "version": 1,
                    "text": path.read_text(),
                }
            },
        )

        def published(m: dict) -> bool:
            return (
                m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
            )

        message = self._wait_for(published, timeout)
        try:  # a later publish for the same document (schema loaded) supersedes the first
            while True:
                message = self._wait_for(published, 1.5)
        except TimeoutError:
            pass
        return message["params"]["diagnostics"]

    def close(self) -> None:
        self.process.kill()
        self.process.wait()
