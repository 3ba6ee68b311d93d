"""Small builders for realistic OTLP payloads, sent to harborlight over OTLP/HTTP protobuf, and a
reader of the agent events they became."""

import os
from dataclasses import dataclass, field

import httpx
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

T0 = 1_764_547_200_000_000_000  # 2025-12-01T00:00:00Z
MS = 1_000_000


def any_value(value) -> AnyValue:
    if isinstance(value, bool):
        return AnyValue(bool_value=value)
    if isinstance(value, int):
        return AnyValue(int_value=value)
    if isinstance(value, float):
        return AnyValue(double_value=value)
    return AnyValue(string_value=str(value))


def kv(values: dict) -> list[KeyValue]:
    return [KeyValue(key=k, value=any_value(v)) for k, v in values.items()]


@dataclass
class Traces:
    """One resource + scope of spans. `span()` returns the new span id, for children to name."""

    resource: dict
    scope: str = "tests"
    trace_id: bytes = field(default_factory=lambda: os.urandom(16))
    request: ExportTraceServiceRequest = field(default_factory=ExportTraceServiceRequest)

    def __post_init__(self) -> None:
        rs = self.request.resource_spans.add()
        rs.resource.attributes.extend(kv(self.resource))
        self._scope = rs.scope_spans.add()
        self._scope.scope.name = self.scope

    def span(
        self,
        name: str,
        attrs: dict | None = None,
        parent: bytes = b"",
        start_ms: int = 0,
        dur_ms: int = 10,
        error: str | None = None,
        kind: int = 1,
        span_id: bytes | None = None,
    ) -> bytes:
        span_id = span_id or os.urandom(8)
        span = self._scope.spans.add(
            trace_id=self.trace_id,
            span_id=span_id,
            parent_span_id=parent,
            name=name,
            kind=kind,
            start_time_unix_nano=T0 + start_ms * MS,
            end_time_unix_nano=T0 + (start_ms + dur_ms) * MS,
        )
        span.attributes.extend(kv(attrs or {}))
        if error is not None:
            span.status.code, span.status.message = 2, error
        return span_id

    def send(self, server) -> None:
        post(server, "/v1/traces", self.request.SerializeToString())


@dataclass
class Logs:
    resource: dict
    scope: str = "tests"
    request: ExportLogsServiceRequest = field(default_factory=ExportLogsServiceRequest)

    def __post_init__(self) -> None:
        rl = self.request.resource_logs.add()
        rl.resource.attributes.extend(kv(self.resource))
        self._scope = rl.scope_logs.add()
        self._scope.scope.name = self.scope

    def event(
        self,
        attrs: dict,
        at_ms: int = 0,
        body: str = "",
        event_name: str = "",
        trace_id: bytes = b"",
        span_id: bytes = b"",
    ) -> None:
        record = self._scope.log_records.add(
            time_unix_nano=T0 + at_ms * MS, severity_number=9, event_name=event_name, trace_id=trace_id, span_id=span_id
        )
        record.body.string_value = body
        record.attributes.extend(kv(attrs))

    def send(self, server) -> None:
        post(server, "/v1/logs", self.request.SerializeToString())


def post(server, path: str, body: bytes, content_type: str = "application/x-protobuf") -> None:
    reply = httpx.post(f"{server.http_url}{path}", content=body, headers={"content-type": content_type}, timeout=30)
    assert reply.status_code == 200, reply.text


EVENT_COLUMNS = (
    "Kind, Name, Model, InputTokens, CachedTokens, CacheWriteTokens, OutputTokens, ReasoningTokens, "
    "CostUsd, HttpStatus, ErrorType, Success, ToolName, ToolCategory, ToolCallId, TargetPaths, "
    "JobName, TrialName, Attempt, TaskName, Provenance, TimingQuality, SourceTable"
)


def events(server, service: str, columns: str = EVENT_COLUMNS, order: str = "Timestamp, Name") -> list[dict]:
    """The agent events of one service, in time order, as column -> value."""
    names = [c.strip() for c in columns.split(",")]
    rows = server.sql(
        f"SELECT {columns} FROM agent_events WHERE ServiceName = {{s:String}} ORDER BY {order}", s=service
    )
    return [dict(zip(names, row, strict=True)) for row in rows]


def of_kind(rows: list[dict], kind: str) -> list[dict]:
    return [r for r in rows if r["Kind"] == kind]
