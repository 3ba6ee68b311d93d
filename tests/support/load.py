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


async def flood(endpoint: str, service: str, clients: int, in_flight: int, requests: int, spans: int) -> Delivery:
    """`clients` channels with `in_flight` concurrent exports each send `requests` requests in all."""
    delivery = Delivery()
    bodies = [(f"{service}-{i}", traces_request(service, spans, job=f"{service}-{i}").SerializeToString())
              for i in range(requests)]
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
                            await asyncio.sleep(0.02 + random.random() * 0.05)

            await asyncio.gather(*(worker() for _ in range(in_flight)))

    await asyncio.gather(*(client() for _ in range(clients)))
    return delivery


@dataclass
class KillLoop:
    kills: int = 0
    acknowledged_jobs: list[str] = field(default_factory=list)
    missing_after_restart: list[str] = field(default_factory=list)


def kill_loop(data_dir: Path, kills: int, spans: int = 50, seed: int = 1) -> KillLoop:
    """Streams requests while SIGKILLing the server at random moments; after each restart every
    acknowledged request must be stored, complete."""
    rng = random.Random(seed)
    result = KillLoop()
    server = SubprocessServer(data_dir)
    counter = 0
    for _ in range(kills):
        server.start()
        stop = threading.Event()
        acked: list[str] = []

        def send(endpoint: str = server.grpc_endpoint) -> None:
            nonlocal counter
            with grpc.insecure_channel(endpoint) as channel:
                export = channel.unary_unary(METHOD)
                while not stop.is_set():
                    counter += 1
                    job = f"kill-{counter}"
                    try:
                        export(traces_request("kill-loop", spans, job=job).SerializeToString(), timeout=10)
                        acked.append(job)
                    except grpc.RpcError:
                        return  # the server died under us: this request was never acknowledged

        senders = [threading.Thread(target=send) for _ in range(3)]
        for t in senders:
            t.start()
        time.sleep(0.5 + rng.random() * 1.5)
        server.kill()
        stop.set()
        for t in senders:
            t.join(30)
        result.kills += 1
        result.acknowledged_jobs += acked
        server.start()
        stored = stored_by_job(server.http_url, "kill-loop")
        result.missing_after_restart += [j for j in result.acknowledged_jobs if stored.get(j) != spans]
        server.stop()
    return result
