"""Acknowledged means stored: SIGKILL after acknowledgements loses nothing, and the store reopens."""

import grpc
import httpx
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub

from tests.support.otlp import traces_request
from tests.support.servers import SubprocessServer


def _all_spans(http_url: str, service: str) -> list[dict]:
    items, cursor = [], None
    while True:
        params = {"service": service, "limit": 1000, **({"cursor": cursor} if cursor else {})}
        page = httpx.get(f"{http_url}/api/spans", params=params, timeout=30).json()
        items += page["items"]
        cursor = page["next_cursor"]
        if not cursor:
            return items


def test_sigkill_after_acknowledgements_loses_nothing_and_retries_stay_single(tmp_path):
    server = SubprocessServer(tmp_path / "store").start()
    requests = [traces_request("restart-test", 50) for _ in range(20)]
    with grpc.insecure_channel(server.grpc_endpoint) as channel:
        stub = TraceServiceStub(channel)
        for request in requests:
            stub.Export(request, timeout=30)  # returns only once acknowledged
    server.kill()

    server.start()
    try:
        spans = _all_spans(server.http_url, "restart-test")
        assert len(spans) == 1000
        assert len({(s["trace_id"], s["span_id"]) for s in spans}) == 1000
        # An exporter that never saw the ack retries after the restart: still stored once.
        with grpc.insecure_channel(server.grpc_endpoint) as channel:
            TraceServiceStub(channel).Export(requests[-1], timeout=30)
        assert len(_all_spans(server.http_url, "restart-test")) == 1000
    finally:
        assert server.stop() == 0


def test_server_starts_and_stops_twice_on_the_same_directory(tmp_path):
    server = SubprocessServer(tmp_path / "store")
    for _ in range(2):
        server.start()
        assert httpx.get(f"{server.http_url}/healthz").json()["status"] == "ok"
        assert server.stop() == 0
