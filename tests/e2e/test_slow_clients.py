"""Slow and too many connections: a client that trickles its headers or its body (or sends nothing) is
closed once the read deadline passes, and connections past the cap are answered 503 and closed, on both HTTP
servers (OTLP/HTTP and the API; the ClickHouse-compatible SQL port).

The attack: 900 connections sending headers or bodies a byte at a time were all still open after 40 s."""

import contextlib
import socket
import threading
import time
from dataclasses import dataclass

import httpx
import pytest

from tests.support.otlp import traces_request
from tests.support.servers import SubprocessServer, free_port

READ_SECONDS = 2
CAP = 60


@dataclass(frozen=True)
class Door:
    port: int
    path: bytes  # where the slow requests go

    def prompt_request(self) -> httpx.Response:
        """What a client that sends promptly gets."""
        url = f"http://127.0.0.1:{self.port}"
        if self.path == b"/v1/traces":
            return httpx.post(
                f"{url}/v1/traces",
                content=traces_request("prompt", 3).SerializeToString(),
                headers={"content-type": "application/x-protobuf"},
                timeout=30,
            )
        return httpx.post(f"{url}/", content="SELECT 1", timeout=30)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = SubprocessServer(
        tmp_path_factory.mktemp("slow") / "store",
        (
            "--read-timeout-seconds",
            str(READ_SECONDS),
            "--max-connections",
            str(CAP),
            "--clickhouse-http-port",
            str(free_port()),
        ),
    ).start()
    yield srv
    srv.stop()


@pytest.fixture(params=["otlp-http", "sql-port"])
def door(request, server) -> Door:
    if request.param == "otlp-http":
        return Door(server.http_port, b"/v1/traces")
    return Door(int(server.extra_args[server.extra_args.index("--clickhouse-http-port") + 1]), b"/")


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
            with contextlib.suppress(OSError):
                s.send(b"x")
        stop.wait(0.2)


def test_slow_headers_slow_bodies_and_silence_are_closed_after_the_read_deadline(door):
    port = door.port
    silent = [_connect(port) for _ in range(10)]
    slow_headers = [_connect(port) for _ in range(20)]
    for s in slow_headers:
        s.sendall(b"POST " + door.path + b" HTTP/1.1\r\nhost: x\r\nx-pad: ")
    slow_bodies = [_connect(port) for _ in range(20)]
    for s in slow_bodies:
        s.sendall(
            b"POST " + door.path + b" HTTP/1.1\r\nhost: x\r\ncontent-type: application/x-protobuf\r\n"
            b"content-length: 1000000\r\n\r\n"
        )
    stop = threading.Event()
    trickler = threading.Thread(target=_trickle, args=(slow_headers + slow_bodies, stop))
    trickler.start()
    try:
        time.sleep(READ_SECONDS * 3)  # well past the deadline, while every one of them keeps sending
        still_open = [s for s in silent + slow_headers + slow_bodies if not _closed(s)]
        assert still_open == [], f"{len(still_open)} of 50 slow connections still open"
        assert door.prompt_request().status_code == 200  # a client that sends promptly is served as before
    finally:
        stop.set()
        trickler.join()
        for s in silent + slow_headers + slow_bodies:
            s.close()


def test_connections_past_the_cap_are_answered_503_and_closed(door):
    held = [_connect(door.port) for _ in range(CAP)]
    try:
        time.sleep(0.5)  # the server has accepted them all
        extra = _connect(door.port)
        extra.sendall(b"GET " + door.path + b" HTTP/1.1\r\nhost: x\r\n\r\n")
        answer = b""
        while chunk := extra.recv(65536):
            answer += chunk
        assert answer.startswith(b"HTTP/1.1 503") and b"retry-after: 1" in answer.lower()
        extra.close()
    finally:
        for s in held:
            s.close()
    time.sleep(0.5)
    assert door.prompt_request().status_code == 200  # the cap frees up
