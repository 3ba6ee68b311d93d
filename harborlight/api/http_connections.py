"""uvicorn's HTTP/1.1 protocol with what it lacks against slow or too many clients.

uvicorn (0.54) closes a connection only when it sits idle after a response (`timeout_keep_alive`), and its
`limit_concurrency` answers 503 to requests past the limit while still accepting and holding every
connection. A client that sends its headers, or its body, a byte at a time, or never, held its connection
forever (900 of 900 were still open after 40 s). Here each connection gets a read deadline for what the
server waits for: a request's headers must arrive within `read_seconds` (counted from the connection or
the previous response), then its body within `read_seconds` more; trickling does not extend either. A
connection past the deadline is closed. Past `max_connections` open connections, a new one is answered
503 with Retry-After and closed at once, so exporters back off and retry.
"""

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

_TOO_MANY = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\nretry-after: 1\r\n"
    b"connection: close\r\ncontent-length: 35\r\n\r\ntoo many connections; retry later\r\n"
)


class GuardedH11Protocol(H11Protocol):
    read_seconds: float = 30.0
    max_connections: int = 512

    _deadline: asyncio.TimerHandle | None = None
    _waiting_for: object = None  # the client's h11 state the deadline runs for (IDLE: headers, SEND_BODY: body)

    _refused = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.max_connections:
            # Answered at once, then the client's request is read and dropped for a moment: closing on unread
            # data would reset the connection, and the client could lose the answer.
            self._refused = True
            transport.write(_TOO_MANY)
            transport.write_eof()
            self.loop.call_later(1.0, transport.close)
            return
        self._watch()

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _watch(self) -> None:
        """Arms the deadline when the connection starts waiting for headers or for a body; keeps it while
        it still waits for the same."""
        state = self.conn.their_state
        waiting_for = state if state in (h11.IDLE, h11.SEND_BODY) and not self.transport.is_closing() else None
        if waiting_for is self._waiting_for:
            return
        self._disarm()
        self._waiting_for = waiting_for
        if waiting_for is not None:
            self._deadline = self.loop.call_later(self.read_seconds, self._expired)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expired(self) -> None:
        self._deadline = None
        self.logger.info(
            "closing a connection that sent no complete %s within %g s",
            "headers" if self._waiting_for is h11.IDLE else "body",
            self.read_seconds,
        )
        self.transport.close()


def guarded_protocol(read_seconds: float, max_connections: int) -> type[H11Protocol]:
    """The protocol class for uvicorn.Config(http=...), with these limits."""
    return type(
        "GuardedH11Protocol", (GuardedH11Protocol,), {"read_seconds": read_seconds, "max_connections": max_connections}
    )
