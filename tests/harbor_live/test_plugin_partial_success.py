"""The plugin does not take a partial acceptance for a whole one: a request `harborlight serve` stores only
in part (OTLP partial_success: rejected items and the reason) is logged with the count and the reason, and
counted, while the valid rest is stored. The plugin is built as Harbor's CLI builds it."""

import asyncio
import logging
import os

import httpx
import pytest
from harbor.cli.job_plugins import plugin_configs_from_cli
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from harborlight.harbor.plugin import HarborlightPlugin
from harborlight.harbor.sender import Batch
from harborlight.store import Signal
from tests.support.servers import SubprocessServer


def _request(job: str) -> bytes:
    """Two harbor.trial spans of one job, the second with a trace id 3 bytes long (OTLP's are 16)."""
    request = ExportTraceServiceRequest()
    resource = request.resource_spans.add()
    resource.resource.attributes.add(key="harbor.job.name").value.string_value = job
    scope = resource.scope_spans.add()
    for name, trace_id in (("good", os.urandom(16)), ("bad", b"abc")):
        span = scope.spans.add(
            trace_id=trace_id,
            span_id=os.urandom(8),
            name="harbor.trial",
            start_time_unix_nano=1_700_000_000_000_000_000,
            end_time_unix_nano=1_700_000_001_000_000_000,
        )
        span.attributes.add(key="harbor.trial.name").value.string_value = f"{job}-{name}"
    return request.SerializeToString()


@pytest.mark.parametrize("protocol", ["http/protobuf", "grpc"])
def test_a_request_stored_in_part_is_logged_with_its_reason(tmp_path, caplog, unique, protocol):
    server = SubprocessServer(tmp_path / "store").start()
    try:
        url = server.http_url if protocol == "http/protobuf" else f"http://{server.grpc_endpoint}"
        (config,) = plugin_configs_from_cli(["harborlight"], [f"endpoint={url}", f"protocol={protocol}"])
        plugin = HarborlightPlugin(**config.kwargs)
        job = f"partial-{unique}"
        with caplog.at_level(logging.WARNING, logger="harborlight.harbor.plugin"):
            plugin._sender.start()
            assert plugin._sender.submit(Batch(f"trial {job}-good", "its end", [(Signal.traces, _request(job))]))
            asyncio.run(plugin._sender.close(60))
        assert (plugin.rejected, plugin.failures, plugin.dropped, plugin.sent) == (1, 0, 0, 1)
        (line,) = [r.getMessage() for r in caplog.records]
        assert f"trial {job}-good" in line and "rejected 1 spans" in line and "trace_id" in line
        stored = httpx.get(f"{server.http_url}/api/spans", params={"job": job}, timeout=60).json()["items"]
        assert [s["trial"] for s in stored] == [f"{job}-good"]
    finally:
        server.stop()
