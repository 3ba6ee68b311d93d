"""Slow and too many connections: a client that trickles its headers or its body (or sends nothing) is
closed once the read deadline passes, and connections past the cap are answered 503 and closed.

The attack: 900 connections sending headers or bodies a byte at a time were all still open after 40 s."""

import socket
import threading
import time

import httpx
import pytest

from tests.support.otlp import traces_request
from tests.support.servers import SubprocessServer

READ_SECONDS = 2
CAP = 60


@pytest.fixture
def server(tmp_path):
    srv = SubprocessServer(tmp_path / "store", ("--read-timeout-seconds", str(READ_SECONDS),
                                                "--max-connections", str(CAP))).start()
    yield srv
    srv.stop()


def _connect(port: int) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    s.settimeout(30)
    return s


def _closed(s: socket.socket) -> bool:
    """The server has closed this connection (EOF or reset), possibly after an answer."""
    s.settimeout(0.2)
    try:
        while data := s.recv(65536):
            if b"503" in data:
                return True
        return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def _trickle(sockets: list[socket.socket], stop: threading.Event) -> None:
    """Sends one more byte on each connection every 0.2 s: each is always "still sending"."""
    while not stop.is_set():
        for s in sockets:
            try:
                s.send(b"x")
            except OSError:
                pass
        stop.wait(0.2)


def test_slow_headers_slow_bodies_and_silence_are_closed_after_the_read_deadline(server):
    port = server.http_port
    silent = [_connect(port) for _ in range(10)]
    slow_headers = [_connect(port) for _ in range(20)]
    for s in slow_headers:
        s.sendall(b"POST /v1/traces HTTP/1.1\r\nhost: x\r\nx-pad: ")
    slow_bodies = [_connect(port) for _ in range(20)]
    for s in slow_bodies:
        s.sendall(b"POST /v1/traces HTTP/1.1\r\nhost: x\r\ncontent-type: application/x-protobuf\r\n"
                  b"content-length: 1000000\r\n\r\n")
    stop = threading.Event()
    trickler = threading.Thread(target=_trickle, args=(slow_headers + slow_bodies, stop))
    trickler.start()
    try:
        time.sleep(READ_SECONDS * 3)  # well past the deadline, while every one of them keeps sending
        still_open = [s for s in silent + slow_headers + slow_bodies if not _closed(s)]
        assert still_open == [], f"{len(still_open)} of 50 slow connections still open"
        # A client that sends promptly is served as before.
        answer = httpx.post(f"{server.http_url}/v1/traces", content=traces_request("prompt", 3).SerializeToString(),
                            headers={"content-type": "application/x-protobuf"}, timeout=30)
        assert answer.status_code == 200
    finally:
        stop.set()
        trickler.join()
        for s in silent + slow_headers + slow_bodies:
            s.close()


def test_connections_past_the_cap_are_answered_503_and_closed(server):
    held = [_connect(server.http_port) for _ in range(CAP)]
    try:
        time.sleep(0.5)  # the server has accepted them all
        extra = _connect(server.http_port)
        extra.sendall(b"GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n")
        answer = b""
        while chunk := extra.recv(65536):
            answer += chunk
        assert answer.startswith(b"HTTP/1.1 503") and b"retry-after: 1" in answer.lower()
        extra.close()
    finally:
        for s in held:
            s.close()
    time.sleep(0.5)
    assert httpx.get(f"{server.http_url}/healthz", timeout=30).status_code == 200  # the cap frees up
