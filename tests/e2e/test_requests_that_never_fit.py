"""A request that can never be committed gets a non-retryable answer with the reason at once, and the
requests sent beside it are stored.

The attack: 40,000 resource attributes (about 9 MiB) shared by 20,000 spans. Each stored span repeats its
resource, so committing it needs gigabytes; it was answered 503 "retry later" after failing, so exporters
retried it forever, and a neighbour of its batch failed with it."""

import asyncio

import grpc
import httpx
import pytest
from google.rpc import status_pb2
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tests.support.otlp import attrs, traces_request
from tests.support.servers import SubprocessServer

METHOD = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"


def _monster() -> ExportTraceServiceRequest:
    request = traces_request("never-fits", 20_000, job="never-fits")
    request.resource_spans[0].resource.attributes.extend(attrs(**{f"host.label.{i}": "v" * 200 for i in range(40_000)}))
    return request


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = SubprocessServer(tmp_path_factory.mktemp("never-fits") / "store").start()  # the default memory limit
    yield srv
    srv.stop()


def test_over_grpc_it_is_invalid_argument_and_its_neighbours_are_stored(server):
    monster = _monster().SerializeToString()
    neighbours = [traces_request("never-fits", 50, job=f"neighbour-{i}").SerializeToString() for i in range(4)]

    async def send_together():
        async with grpc.aio.insecure_channel(
            server.grpc_endpoint, options=[("grpc.max_send_message_length", 64 << 20)]
        ) as channel:
            export = channel.unary_unary(METHOD)
            return await asyncio.gather(
                *(export(body, timeout=120) for body in [monster, *neighbours]), return_exceptions=True
            )

    refused, *acknowledged = asyncio.run(send_together())
    assert isinstance(refused, grpc.aio.AioRpcError)
    assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "once each span carries its resource and scope" in refused.details()
    assert not any(isinstance(a, Exception) for a in acknowledged), acknowledged
    stored = httpx.get(f"{server.http_url}/api/ingest", params={"service": "never-fits"}, timeout=60).json()["stored"]
    assert {row["job"]: row["items"] for row in stored} == {f"neighbour-{i}": 50 for i in range(4)}


def test_over_http_it_is_413_with_the_reason(server):
    answer = httpx.post(
        f"{server.http_url}/v1/traces",
        content=_monster().SerializeToString(),
        timeout=120,
        headers={"content-type": "application/x-protobuf"},
    )
    assert answer.status_code == 413
    assert "send fewer spans per request" in status_pb2.Status.FromString(answer.content).message
    assert "retry-after" not in answer.headers
