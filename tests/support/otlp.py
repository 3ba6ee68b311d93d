"""Hand-built OTLP export requests for tests that need exact bytes (bad ids, retries, sizes)."""

import os

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

T0 = 1_764_547_200_000_000_000  # 2025-12-01T00:00:00Z


def attrs(**values) -> list[KeyValue]:
    out = []
    for key, value in values.items():
        key = key.replace("__", ".")
        if isinstance(value, bool):
            out.append(KeyValue(key=key, value=AnyValue(bool_value=value)))
        elif isinstance(value, int):
            out.append(KeyValue(key=key, value=AnyValue(int_value=value)))
        elif isinstance(value, float):
            out.append(KeyValue(key=key, value=AnyValue(double_value=value)))
        else:
            out.append(KeyValue(key=key, value=AnyValue(string_value=str(value))))
    return out


def traces_request(service: str, n_spans: int, job: str | None = None, start: int = T0) -> ExportTraceServiceRequest:
    """One trace of `n_spans` spans: a root and its children."""
    request = ExportTraceServiceRequest()
    rs = request.resource_spans.add()
    resource = {"service.name": service}
    if job:
        resource["harbor.job.name"] = job
    rs.resource.attributes.extend(attrs(**resource))
    scope = rs.scope_spans.add()
    scope.scope.name = "tests"
    trace_id, root_id = os.urandom(16), os.urandom(8)
    for i in range(n_spans):
        span = scope.spans.add(
            trace_id=trace_id,
            span_id=root_id if i == 0 else os.urandom(8),
            parent_span_id=b"" if i == 0 else root_id,
            name=f"step {i}",
            kind=1,
            start_time_unix_nano=start + i * 1000,
            end_time_unix_nano=start + i * 1000 + 500,
        )
        span.attributes.extend(
            attrs(**{"gen_ai.request.model": "claude-sonnet-4", "gen_ai.usage.input_tokens": 10 + i})
        )
    return request


def logs_request(service: str, n: int, event_name: str = "claude_code.api_request") -> ExportLogsServiceRequest:
    request = ExportLogsServiceRequest()
    rl = request.resource_logs.add()
    rl.resource.attributes.extend(attrs(**{"service.name": service}))
    sl = rl.scope_logs.add()
    for i in range(n):
        record = sl.log_records.add(
            time_unix_nano=T0 + i, severity_number=9, severity_text="INFO", event_name=event_name
        )
        record.body.string_value = f"event {i}"
        record.attributes.extend(attrs(**{"event.name": event_name.split(".")[-1], "input_tokens": 5}))
    return request
