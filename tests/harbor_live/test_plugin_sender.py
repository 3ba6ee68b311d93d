"""The plugin's sender on its own, against an endpoint that accepts connections and never answers:
a batch beyond the queue's bound is dropped and counted, and `end_timeout` bounds the job's end (the
test allows 20 s beyond a 1 s `end_timeout`: the machine is shared). Over gRPC the same."""

import asyncio
import time

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from harborlight.harbor.plugin import HarborlightPlugin
from harborlight.harbor.sender import Batch
from harborlight.store import Signal
from tests.harbor_live.test_plugin_harmless import silent_endpoint  # noqa: F401 (a fixture)

ALLOWED_EXTRA_S = 20


@pytest.mark.parametrize("protocol", ["http/protobuf", "grpc"])
def test_the_queue_is_bounded_and_the_end_waits_end_timeout(silent_endpoint, protocol):  # noqa: F811
    plugin = HarborlightPlugin(
        endpoint=f"http://127.0.0.1:{silent_endpoint.port}", protocol=protocol, end_timeout=1, queue_size=3
    )
    body = ExportTraceServiceRequest().SerializeToString()
    sender = plugin._sender
    sender.start()
    assert sender.submit(Batch("trial a", "its setup phases", [(Signal.traces, body)] * 2))
    assert not sender.submit(Batch("trial b", "its end", [(Signal.traces, body)] * 2))  # 4 > 3: dropped
    assert sender.submit(Batch("trial c", "its end", [(Signal.traces, body)]))
    started = time.monotonic()
    asyncio.run(sender.close(plugin._end_timeout))
    waited = time.monotonic() - started
    assert waited < plugin._end_timeout + ALLOWED_EXTRA_S, waited
    counts = sender.counts
    assert (counts.dropped_full, counts.sent) == (2, 0)
    assert counts.dropped_end + counts.failed == 3  # each either dropped at the end or past its 10 s deadline
    assert plugin.dropped == counts.dropped_full + counts.dropped_end
    assert not sender.submit(Batch("trial d", "its end", [(Signal.traces, body)]))  # closed: dropped, no raise
