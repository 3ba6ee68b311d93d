"""Under more load than the write-ahead log holds, ingest refuses with retryable answers and loses nothing."""

import asyncio

import grpc
import httpx

from tests.support.otlp import traces_request
from tests.support.servers import SubprocessServer

METHOD = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"


def _count(http_url: str, service: str) -> int:
    stored = httpx.get(f"{http_url}/api/ingest", params={"service": service}, timeout=60).json()["stored"]
    return sum(r["items"] for r in stored if r["signal"] == "traces")


def test_a_full_log_answers_retryable_statuses_and_every_acknowledged_span_is_stored(tmp_path):
    # A 1 MiB log and one request per commit: 24 concurrent requests of ~150 KB overflow it.
    server = SubprocessServer(tmp_path / "store", ("--wal-max-mib", "1", "--max-batch-items", "1000")).start()
    try:
        http_bodies = [traces_request("bp-http", 1000).SerializeToString() for _ in range(12)]
        grpc_bodies = [traces_request("bp-grpc", 1000).SerializeToString() for _ in range(12)]

        async def send_http(client: httpx.AsyncClient, body: bytes) -> list[int]:
            statuses = []
            while True:
                answer = await client.post(
                    f"{server.http_url}/v1/traces", content=body, headers={"content-type": "application/x-protobuf"}
                )
                statuses.append(answer.status_code)
                if answer.status_code == 200:
                    return statuses
                assert answer.status_code == 429 and int(answer.headers["retry-after"]) >= 1
                await asyncio.sleep(0.05)

        async def send_grpc(channel: grpc.aio.Channel, body: bytes) -> list[grpc.StatusCode]:
            codes = []
            while True:
                try:
                    await channel.unary_unary(METHOD)(body, timeout=30)
                    return codes + [grpc.StatusCode.OK]
                except grpc.aio.AioRpcError as exc:
                    codes.append(exc.code())
                    assert exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, exc.details()
                    await asyncio.sleep(0.05)

        async def main():
            async with httpx.AsyncClient(timeout=30) as client, grpc.aio.insecure_channel(server.grpc_endpoint) as ch:
                return await asyncio.gather(
                    asyncio.gather(*(send_http(client, b) for b in http_bodies)),
                    asyncio.gather(*(send_grpc(ch, b) for b in grpc_bodies)),
                )

        http_statuses, grpc_codes = asyncio.run(main())
        assert any(429 in s for s in http_statuses), "the log never filled; the test proves nothing"
        assert any(grpc.StatusCode.RESOURCE_EXHAUSTED in c for c in grpc_codes)
        assert _count(server.http_url, "bp-http") == 12 * 1000
        assert _count(server.http_url, "bp-grpc") == 12 * 1000
    finally:
        server.stop()
