"""Load and fault drivers shared by tests/reliability and bench/reliability.py.

Exporters here behave like real ones: they retry a request refused with a retryable status
(RESOURCE_EXHAUSTED, UNAVAILABLE) after a back-off, and count a request as delivered only when it is
acknowledged.
"""

import asyncio
import random
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import httpx

from tests.support.otlp import traces_request
from tests.support.servers import SubprocessServer

METHOD = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
RETRYABLE = (grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.UNAVAILABLE)


@dataclass
class Delivery:
    acknowledged_spans: int = 0
    acknowledged_jobs: list[str] = field(default_factory=list)
    refusals: dict[str, int] = field(default_factory=dict)
    other_errors: list[str] = field(default_factory=list)


def peak_rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def stored_by_job(http_url: str, service: str) -> dict[str, int]:
    rows = httpx.get(f"{http_url}/api/ingest", params={"service": service}, timeout=60).json()["stored"]
    return {r["job"]: r["items"] for r in rows if r["signal"] == "traces"}


async def flood(
    endpoint: str, service: str, clients: int, in_flight: int, requests: int, spans: int, give_up_after: float = 300
) -> Delivery:
    """`clients` channels with `in_flight` concurrent exports each send `requests` requests in all, each
    retried while it is refused as retryable, until `give_up_after` seconds (then an error says so)."""
    delivery = Delivery()
    deadline = time.monotonic() + give_up_after
    bodies = [
        (f"{service}-{i}", traces_request(service, spans, job=f"{service}-{i}").SerializeToString())
        for i in range(requests)
    ]
    queue = list(reversed(bodies))

    async def client() -> None:
        async with grpc.aio.insecure_channel(endpoint) as channel:
            export = channel.unary_unary(METHOD)

            async def worker() -> None:
                while queue:
                    job, body = queue.pop()
                    while True:
                        try:
                            await export(body, timeout=60)
                            delivery.acknowledged_spans += spans
                            delivery.acknowledged_jobs.append(job)
                            break
                        except grpc.aio.AioRpcError as exc:
                            if exc.code() not in RETRYABLE:
                                delivery.other_errors.append(f"{exc.code()}: {exc.details()}")
                                break
                            delivery.refusals[exc.code().name] = delivery.refusals.get(exc.code().name, 0) + 1
                            if time.monotonic() > deadline:
                                delivery.other_errors.append(
                                    f"still refused after {give_up_after:.0f} s: {exc.details()}"
                                )
                                break
                            await asyncio.sleep(0.02 + random.random() * 0.05)

            await asyncio.gather(*(worker() for _ in range(in_flight)))

    await asyncio.gather(*(client() for _ in range(clients)))
    return delivery


@dataclass
class KillLoop:
    kills: int = 0
    kills_mid_commit: int = 0  # SIGKILLed 0-50 ms after a commit began
    torn_tails: int = 0  # restarts that cut a record the kill had torn
    acknowledged_jobs: list[str] = field(default_factory=list)
    sent_again: list[str] = field(default_factory=list)  # in flight at a kill, sent again after the restart
    known_when_sent_again: list[str] = field(default_factory=list)  # of those, the ones the log had taken
    missing_after_restart: list[str] = field(default_factory=list)  # acknowledged, not stored whole
    stored_twice: list[str] = field(default_factory=list)


def _commit_began(checkpoint: Path, timeout: float) -> bool:
    """Waits for the write-ahead log's checkpoint to be replaced: the committer writes it just before an INSERT."""

    def identity() -> tuple[int, int] | None:
        try:
            st = checkpoint.stat()
            return st.st_ino, st.st_mtime_ns
        except FileNotFoundError:
            return None

    before, deadline = identity(), time.monotonic() + timeout
    while time.monotonic() < deadline:
        if identity() != before:
            return True
        time.sleep(0.001)
    return False


def _export_until_acknowledged(endpoint: str, body: bytes) -> None:
    with grpc.insecure_channel(endpoint) as channel:
        export = channel.unary_unary(METHOD)
        while True:
            try:
                export(body, timeout=10)
                return
            except grpc.RpcError as exc:
                if exc.code() not in RETRYABLE:
                    raise
                time.sleep(0.05)


def kill_loop(data_dir: Path, kills: int, spans: int = 50, seed: int = 1) -> KillLoop:
    """Streams requests while SIGKILLing the server, every other time at a random moment and otherwise just
    after a commit began. As an exporter does, a request whose answer the kill cut off is sent again, the
    same bytes, once the server is back. After each restart every acknowledged request must be stored,
    complete and once: also those the log had taken just before the kill, whose acknowledgement was lost."""
    rng = random.Random(seed)
    result = KillLoop()
    server = SubprocessServer(data_dir)
    counter = 0
    unanswered: list[tuple[str, bytes]] = []
    for k in range(kills):
        server.start()
        stop = threading.Event()
        acked: list[str] = []

        def send(endpoint: str = server.grpc_endpoint, stop: threading.Event = stop, acked: list[str] = acked) -> None:
            nonlocal counter
            with grpc.insecure_channel(endpoint) as channel:
                export = channel.unary_unary(METHOD)
                while not stop.is_set():
                    counter += 1
                    job = f"kill-{counter}"
                    body = traces_request("kill-loop", spans, job=job).SerializeToString()
                    try:
                        export(body, timeout=10)
                        acked.append(job)
                    except grpc.RpcError:
                        unanswered.append((job, body))  # the server died under us: its exporter sends it again
                        return

        senders = [threading.Thread(target=send) for _ in range(3)]
        for t in senders:
            t.start()
        time.sleep(0.3 + rng.random() * 1.2)
        if k % 2 and _commit_began(data_dir / "wal" / "checkpoint", timeout=10):
            time.sleep(rng.random() * 0.05)
            result.kills_mid_commit += 1
        server.kill()
        stop.set()
        for t in senders:
            t.join(30)
        result.kills += 1
        result.acknowledged_jobs += acked
        server.start()  # serves once what the log held is stored
        for job, body in unanswered:
            _export_until_acknowledged(server.grpc_endpoint, body)
            result.sent_again.append(job)
            result.acknowledged_jobs.append(job)
        report = httpx.get(f"{server.http_url}/api/ingest", params={"service": "kill-loop"}, timeout=60).json()
        result.known_when_sent_again += [
            s["job"]
            for s in report["since_start"]["sources"]
            if s["duplicate_requests"] and s["job"] in {job for job, _ in unanswered}
        ]
        unanswered.clear()
        result.torn_tails += any("torn tail" in d for d in report["log"]["damage"])
        stored = {r["job"]: r["items"] for r in report["stored"] if r["signal"] == "traces"}
        result.missing_after_restart += [j for j in result.acknowledged_jobs if stored.get(j, 0) < spans]
        result.stored_twice += [j for j, n in stored.items() if n > spans and j not in result.stored_twice]
        server.stop()
    return result
