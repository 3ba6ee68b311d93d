"""The plugin does not take a partial acceptance for a whole one: a request `harborlight serve` stores only
in part (OTLP partial_success: rejected items and the reason) is logged with the count and the reason, and
counted, while the valid rest is stored. The plugin is built as Harbor's CLI builds it."""

import asyncio
import logging
import os

import httpx
from harbor.cli.job_plugins import plugin_configs_from_cli
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from importers.harbor_plugin import HarborlightPlugin
from storage import Signal
from tests.support.servers import SubprocessServer


def _request(job: str) -> bytes:
    """Two harbor.trial spans of one job, the second with a trace id 3 bytes long (OTLP's are 16)."""
    request = ExportTraceServiceRequest()
    resource = request.resource_spans.add()
    resource.resource.attributes.add(key="harbor.job.name").value.string_value = job
    scope = resource.scope_spans.add()
    for name, trace_id in (("good", os.urandom(16)), ("bad", b"abc")):
        span = scope.spans.add(trace_id=trace_id, span_id=os.urandom(8), name="harbor.trial",
                               start_time_unix_nano=1_700_000_000_000_000_000,
                               end_time_unix_nano=1_700_000_001_000_000_000)
        span.attributes.add(key="harbor.trial.name").value.string_value = f"{job}-{name}"
    return request.SerializeToString()


def test_a_request_stored_in_part_is_logged_with_its_reason(tmp_path, caplog, unique):
    server = SubprocessServer(tmp_path / "store").start()
    try:
        (config,) = plugin_configs_from_cli(["harborlight"], [f"endpoint={server.http_url}"])
        plugin = HarborlightPlugin(**config.kwargs)
        job = f"partial-{unique}"
        with caplog.at_level(logging.WARNING, logger="importers.harbor_plugin"):
            asyncio.run(plugin._send([(Signal.traces, _request(job))]))
        assert (plugin.rejected, plugin.failures) == (1, 0)
        (line,) = [r.getMessage() for r in caplog.records]
        assert "rejected 1 spans" in line and "trace_id" in line
        stored = httpx.get(f"{server.http_url}/api/spans", params={"job": job}, timeout=60).json()["items"]
        assert [s["trial"] for s in stored] == [f"{job}-good"]
    finally:
        server.stop()
