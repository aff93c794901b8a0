"""A tiny scripted HTTP server for the Python client's tests.

Each test gives, per "METHOD PATH", the answers to give in order (the last
one repeats): a status with a JSON body and headers, an event stream's
raw text, or None to drop the connection without answering. Every request
is recorded with its headers and body, so a test can check what the client
sent: the same Idempotency-Key on every attempt, the fields of the body.
"""

import http.server
import json
import threading
from dataclasses import dataclass, field
from typing import Dict, List, Optional


@dataclass
class Answer:
    """One answer: `stream` (raw event-stream text) or a JSON `body`."""

    status: int = 200
    body: object = None
    headers: Dict[str, str] = field(default_factory=dict)
    stream: Optional[str] = None


@dataclass
class Request:
    """One request as the server received it."""

    method: str
    path: str
    headers: Dict[str, str]
    body: object


class FixtureServer:
    """Serves `script` on 127.0.0.1 (a free port) until stopped."""

    def __init__(self, script: Dict[str, List[Optional[Answer]]]) -> None:
        self.script = script
        self.requests: List[Request] = []
        fixture = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                fixture.answer(self, "GET")

            def do_POST(self) -> None:
                fixture.answer(self, "POST")

            def log_message(self, *args) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True)

    def __enter__(self) -> "FixtureServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def made(self, method: str, path: str) -> List[Request]:
        """The requests received for METHOD PATH."""
        return [r for r in self.requests if r.method == method and r.path == path]

    def answer(self, handler: http.server.BaseHTTPRequestHandler, method: str) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        self.requests.append(Request(method, handler.path, dict(handler.headers),
                                     json.loads(raw) if raw else None))
        answers = self.script.get("%s %s" % (method, handler.path), [Answer(404, {})])
        answer = answers.pop(0) if len(answers) > 1 else answers[0]
        if answer is None:  # a lost answer: the connection drops
            handler.close_connection = True
            return
        handler.send_response(answer.status)
        for name, value in answer.headers.items():
            handler.send_header(name, value)
        if answer.stream is not None:
            handler.send_header("Content-Type", "text/event-stream")
            handler.end_headers()
            handler.wfile.write(answer.stream.encode("utf-8"))
            handler.close_connection = True
            return
        data = json.dumps(answer.body).encode("utf-8")
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)
