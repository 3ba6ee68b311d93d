"""The live feed is bounded per subscriber and per tenant.

The attack: /api/live streams that never read while their tenant's agents make tool calls. Each stream's
events queued without limit (120 streams: RSS 551 -> 1,988 MiB against a 1,024 MiB limit, every tenant's
ingest refused with 503, still 1,606 MiB after they closed), and one tenant's streams could take every
HTTP connection. Now a stream that falls more than --live-buffer-kib behind is dropped with a final
`dropped` event, a tenant holds at most --live-streams-per-tenant streams (one more: 429), and a closed
stream gives its slot back.

A real `harborlight serve` process, 200 raw-socket streams that never read (100 for each of two tenants,
whose agents send tool calls meanwhile), a third tenant's ingest asked throughout; RSS read from /proc."""

import socket
import threading

import httpx
import pytest

from tests.agent.otlp_build import Traces
from tests.support.servers import SubprocessServer

MEMORY_LIMIT_MIB = 1024
PER_TENANT = 100
TOKENS = {"tok-acme": "acme", "tok-globex": "globex", "tok-initech": "initech"}
WATCHED = ("tok-acme", "tok-globex")
REQUESTS_PER_TENANT = 30
TOOL_CALLS_PER_REQUEST = 400


def _rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


class RssWatch:
    """Samples a process's RSS every 0.2 s in a thread; `peak` is the largest seen."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self._stop = pid, 0.0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.2):
            self.peak = max(self.peak, _rss_mib(self.pid))

    def stop(self) -> float:
        self._stop.set()
        self._thread.join(5)
        return self.peak


def _open_stream(port: int, token: str) -> tuple[socket.socket, bytes]:
    """A GET /api/live whose client reads the answer's head and then nothing: (socket, what it read)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a small window: the server's writes stall soon
    sock.settimeout(30)
    sock.connect(("127.0.0.1", port))
    sock.sendall(f"GET /api/live HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1024)
        if not chunk:
            break
        head += chunk
    return sock, head


def _drain(sock: socket.socket) -> bytes:
    """Everything the server sent, up to the end of its chunked answer."""
    data = b""
    sock.settimeout(60)
    try:
        while not data.endswith(b"\r\n0\r\n\r\n"):
            chunk = sock.recv(1 << 20)
            if not chunk:
                break
            data += chunk
    except TimeoutError:
        pass
    return data


def _tool_calls(tenant_token: str, index: int) -> bytes:
    resource = {
        "service.name": "agent",
        "harbor.job.name": f"busy-{TOKENS[tenant_token]}",
        "harbor.trial.name": f"busy-{TOKENS[tenant_token]}-{index}",
        "harbor.task.name": "t",
    }
    traces = Traces(resource)
    for call in range(TOOL_CALLS_PER_REQUEST):
        traces.span(
            "execute_tool Bash",
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "Bash",
                "gen_ai.tool.call.id": f"call-{index}-{call}",
                "command": "ls " * 20,
            },
            start_ms=call * 10,
            dur_ms=5,
        )
    return traces.request.SerializeToString()


def _post(client: httpx.Client, token: str, body: bytes) -> int:
    return client.post(
        "/v1/traces",
        content=body,
        headers={"content-type": "application/x-protobuf", "authorization": f"Bearer {token}"},
    ).status_code


def _caught_up(client: httpx.Client) -> None:
    """Waits until everything acknowledged is stored (the API's reads say what they could not see yet)."""
    while True:
        answer = client.get("/api/ingest", params={"service": ""}, headers={"authorization": "Bearer tok-acme"})
        assert answer.status_code == 200, answer.text
        if "x-harborlight-unstored-requests" not in answer.headers:
            return


@pytest.fixture
def live_server(tmp_path):
    tokens = tmp_path / "tokens"
    tokens.write_text("".join(f"{token} {tenant}\n" for token, tenant in TOKENS.items()))
    server = SubprocessServer(
        tmp_path / "data",
        (
            "--tokens-file",
            str(tokens),
            "--live-streams-per-tenant",
            str(PER_TENANT),
            "--memory-limit-mib",
            str(MEMORY_LIMIT_MIB),
        ),
    ).start(timeout=120)
    yield server
    server.stop()


def test_stalled_streams_are_dropped_and_capped_while_other_tenants_ingest(live_server):
    pid, port = live_server.process.pid, live_server.http_port
    client = httpx.Client(base_url=live_server.http_url, timeout=120)
    assert _post(client, "tok-initech", _tool_calls("tok-initech", 0)) == 200  # the process at work once
    baseline = _rss_mib(pid)

    streams = [_open_stream(port, token) for token in WATCHED for _ in range(PER_TENANT)]
    assert all(head.startswith(b"HTTP/1.1 200") for _, head in streams)
    with client.stream("GET", "/api/live", headers={"authorization": "Bearer tok-acme"}) as beyond:
        assert beyond.status_code == 429 and "--live-streams-per-tenant" in beyond.read().decode(), beyond.status_code

    rss = RssWatch(pid)
    statuses: list[int] = []
    stop = threading.Event()

    def other_tenant() -> None:  # a tenant with no streams keeps sending while the others' streams stall
        with httpx.Client(base_url=live_server.http_url, timeout=120) as own:
            index = 1
            while not stop.is_set():
                statuses.append(_post(own, "tok-initech", _tool_calls("tok-initech", index)))
                index += 1
                stop.wait(0.5)

    prober = threading.Thread(target=other_tenant, daemon=True)
    prober.start()
    try:
        for index in range(REQUESTS_PER_TENANT):
            for token in WATCHED:
                status = _post(client, token, _tool_calls(token, index))
                assert status == 200, status
        _caught_up(client)
        # Every stalled stream ends once the feed has offered it more than its buffer: its reader, reading at
        # last, finds what was sent before, then the `dropped` event saying why, then the answer's end.
        for sock, _ in streams:
            data = _drain(sock)
            assert data.endswith(b"\r\n0\r\n\r\n"), data[-300:]
            tail = data[data.rindex(b"event: ") :]
            assert tail.startswith(b"event: dropped\n"), tail[:200]
            assert b"behind its reader" in tail and b"--live-buffer-kib" in tail
    finally:
        stop.set()
        prober.join(120)
        peak = rss.stop()
    print(f"RSS: {baseline:.0f} MiB before the streams, peak {peak:.0f} MiB with 200 stalled streams")

    assert peak < MEMORY_LIMIT_MIB, peak
    assert statuses and set(statuses) == {200}, statuses
    assert client.get("/healthz").status_code == 200

    for sock, _ in streams:
        sock.close()
    # The closed streams gave their slots back: a tenant opens as many again, and one more is refused.
    again = [_open_stream(port, "tok-acme") for _ in range(PER_TENANT)]
    assert all(head.startswith(b"HTTP/1.1 200") for _, head in again)
    with client.stream("GET", "/api/live", headers={"authorization": "Bearer tok-acme"}) as beyond:
        assert beyond.status_code == 429
    for sock, _ in again:
        sock.close()
    after = _rss_mib(pid)
    print(f"RSS after they closed: {after:.0f} MiB")
    assert after < peak, (baseline, peak, after)
    client.close()
