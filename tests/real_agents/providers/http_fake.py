"""A small HTTP server on 127.0.0.1:0 in a thread, the ground the three fake providers stand on.

A provider implements `answer(request) -> Reply`; every request is kept in `requests` (so an endpoint a
new agent version starts calling shows up), and a reply is JSON or a server-sent event stream.
"""

import gzip
import json
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes

    def json(self) -> dict:
        return json.loads(self.body) if self.body.strip() else {}


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: object = None  # JSON-able
    events: list[tuple[str | None, object]] | None = None  # (event name or None, JSON-able data) for SSE
    headers: dict[str, str] = field(default_factory=dict)


class QuietHTTPServer(ThreadingHTTPServer):
    """A client hanging up mid-answer (an agent exiting) is no error of the server."""

    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class FakeProvider:
    def __init__(self) -> None:
        self.requests: list[Request] = []
        self._server = QuietHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def answer(self, request: Request) -> Reply:
        raise NotImplementedError

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> "FakeProvider":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()


def _handler(provider: FakeProvider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args) -> None:  # quiet: the requests are kept instead
            pass

        def _any(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            if self.headers.get("content-encoding") == "gzip":
                body = gzip.decompress(body)
            split = urlsplit(self.path)
            request = Request(
                self.command, split.path, parse_qs(split.query), {k.lower(): v for k, v in self.headers.items()}, body
            )
            provider.requests.append(request)
            try:
                reply = provider.answer(request)
            except Exception as exc:  # a fault of the fake itself: say so to the agent and the test
                reply = Reply(500, {"error": {"message": f"fake provider failed: {exc!r}"}})
            self._send(reply)

        def _send(self, reply: Reply) -> None:
            self.send_response(reply.status)
            for key, value in reply.headers.items():
                self.send_header(key, value)
            if reply.events is None:
                payload = json.dumps(reply.body if reply.body is not None else {}).encode()
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
                return
            chunks = []
            for event, data in reply.events:
                head = f"event: {event}\n" if event else ""
                chunks.append(f"{head}data: {json.dumps(data)}\n\n".encode())
            payload = b"".join(chunks)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _any

    return Handler
