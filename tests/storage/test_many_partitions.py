"""A commit may touch many partitions: an import of a run that spans months, many tenants in one batch."""

import os

import httpx
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from tests.support.otlp import T0

DAY = 86_400 * 10**9


def test_one_request_over_150_days_is_stored_whole(server, unique):
    """The engine refuses an INSERT block touching more than 100 partitions by default (TOO_MANY_PARTS), which
    no retry would cure: the commit lifts that limit."""
    request = ExportTraceServiceRequest()
    rs = request.resource_spans.add()
    rs.resource.attributes.add(key="service.name", value=AnyValue(string_value=unique))
    spans = rs.scope_spans.add().spans
    for day in range(150):
        spans.add(
            trace_id=os.urandom(16),
            span_id=os.urandom(8),
            name="old",
            kind=1,
            start_time_unix_nano=T0 - day * DAY,
            end_time_unix_nano=T0 - day * DAY + 1,
        )
    answer = httpx.post(
        f"{server.http_url}/v1/traces",
        content=request.SerializeToString(),
        headers={"content-type": "application/x-protobuf"},
    )
    assert answer.status_code == 200, answer.text
    [(stored, days)] = server.sql(
        "SELECT count(), uniqExact(toDate(Timestamp)) FROM otel_traces WHERE ServiceName = {s:String}", s=unique
    )
    assert (stored, days) == (150, 150)
