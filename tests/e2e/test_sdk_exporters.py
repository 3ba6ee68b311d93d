"""The real OpenTelemetry SDK exporters, pointed at harborlight, land rows in the exporter's schema."""

import json

import httpx
import pytest
from opentelemetry.exporter.otlp.proto.grpc._log_exporter import OTLPLogExporter as GrpcLogExporter
from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import OTLPMetricExporter as GrpcMetricExporter
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcSpanExporter
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter as HttpLogExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpSpanExporter
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.trace import SpanKind, Status, StatusCode


def _send_trace(exporter, service: str) -> tuple[str, str]:
    provider = TracerProvider(resource=Resource.create({"service.name": service, "harbor.job.name": f"job-{service}"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("agent", "1.2.3")
    with (
        tracer.start_as_current_span("invoke_agent", kind=SpanKind.SERVER) as root,
        tracer.start_as_current_span("chat claude-sonnet-4", kind=SpanKind.CLIENT) as child,
    ):
        child.set_attribute("gen_ai.usage.input_tokens", 1200)
        child.set_attribute("gen_ai.request.model", "claude-sonnet-4")
        child.set_attribute("retry", True)
        child.set_attribute("temperature", 0.5)
        child.set_attribute("tags", ["a", "b"])
        child.add_event("exception", {"exception.type": "RateLimitError"})
        child.set_status(Status(StatusCode.ERROR, "429 Too Many Requests"))
    provider.shutdown()
    return format(root.get_span_context().trace_id, "032x"), format(root.get_span_context().span_id, "016x")


@pytest.mark.parametrize("transport", ["grpc", "http"])
def test_sdk_span_exporter_lands_spans_with_exporter_values(server, unique, transport):
    exporter = (
        GrpcSpanExporter(endpoint=server.grpc_endpoint, insecure=True)
        if transport == "grpc"
        else HttpSpanExporter(endpoint=f"{server.http_url}/v1/traces")
    )
    trace_id, root_id = _send_trace(exporter, unique)

    rows = server.sql(
        "SELECT SpanName, SpanKind, StatusCode, StatusMessage, TraceId, SpanId, ParentSpanId, ScopeName, "
        "ScopeVersion, SpanAttributes, `Events.Name`, `Events.Attributes`, Duration > 0, ResourceAttributes "
        "FROM otel_traces WHERE ServiceName = {s:String} ORDER BY SpanName",
        s=unique,
    )
    assert len(rows) == 2
    chat, root = rows
    assert root[:7] == ("invoke_agent", "Server", "Unset", "", trace_id, root_id, "")
    assert chat[:4] == ("chat claude-sonnet-4", "Client", "Error", "429 Too Many Requests")
    assert chat[4] == trace_id and chat[6] == root_id and len(chat[5]) == 16 and chat[5] == chat[5].lower()
    assert chat[7:9] == ("agent", "1.2.3")
    assert chat[9] == {
        "gen_ai.usage.input_tokens": "1200",
        "gen_ai.request.model": "claude-sonnet-4",
        "retry": "true",
        "temperature": "0.5",
        "tags": '["a","b"]',
    }
    assert chat[10] == ["exception"] and chat[11] == [{"exception.type": "RateLimitError"}]
    assert chat[12] == 1  # a measured, non-zero duration
    assert chat[13]["harbor.job.name"] == f"job-{unique}"
    # The exporter's companion table for Grafana's trace lookup is filled by its materialized view.
    assert server.sql("SELECT count() FROM otel_traces_trace_id_ts WHERE TraceId = {t:String}", t=trace_id)[0][0] >= 1

    page = httpx.get(f"{server.http_url}/api/spans", params={"service": unique}).json()
    assert {s["name"] for s in page["items"]} == {"invoke_agent", "chat claude-sonnet-4"}
    assert all(s["job"] == f"job-{unique}" for s in page["items"])


@pytest.mark.parametrize("transport", ["grpc", "http"])
def test_sdk_log_exporter_lands_events_with_event_name(server, unique, transport):
    exporter = (
        GrpcLogExporter(endpoint=server.grpc_endpoint, insecure=True)
        if transport == "grpc"
        else HttpLogExporter(endpoint=f"{server.http_url}/v1/logs")
    )
    provider = LoggerProvider(resource=Resource.create({"service.name": unique}))
    provider.add_log_record_processor(SimpleLogRecordProcessor(exporter))
    logger = provider.get_logger("claude_code")
    logger.emit(
        body="claude_code.api_request",
        event_name="claude_code.api_request",
        attributes={"model": "claude-sonnet-4", "cost_usd": 0.0123, "input_tokens": 1500},
    )
    provider.shutdown()

    rows = server.sql(
        "SELECT EventName, Body, LogAttributes, ScopeName FROM otel_logs WHERE ServiceName = {s:String}", s=unique
    )
    assert rows == [
        (
            "claude_code.api_request",
            "claude_code.api_request",
            {"model": "claude-sonnet-4", "cost_usd": "0.0123", "input_tokens": "1500"},
            "claude_code",
        )
    ]


def test_sdk_metric_exporter_lands_sums_gauges_and_histograms(server, unique):
    reader = PeriodicExportingMetricReader(
        GrpcMetricExporter(endpoint=server.grpc_endpoint, insecure=True), export_interval_millis=3_600_000
    )
    provider = MeterProvider(resource=Resource.create({"service.name": unique}), metric_readers=[reader])
    meter = provider.get_meter("claude_code")
    meter.create_counter("claude_code.token.usage", unit="tokens").add(1500, {"type": "input"})
    meter.create_histogram("tool.duration", unit="ms").record(42.0)
    meter.create_gauge("queue.depth").set(7)
    provider.shutdown()

    assert server.sql(
        "SELECT MetricName, MetricUnit, Value, Attributes, IsMonotonic FROM otel_metrics_sum "
        "WHERE ServiceName = {s:String}",
        s=unique,
    ) == [("claude_code.token.usage", "tokens", 1500.0, {"type": "input"}, True)]
    assert server.sql(
        "SELECT MetricName, Count, Sum, Min, Max, length(BucketCounts) = length(ExplicitBounds) + 1 "
        "FROM otel_metrics_histogram WHERE ServiceName = {s:String}",
        s=unique,
    ) == [("tool.duration", 1, 42.0, 42.0, 42.0, True)]
    assert server.sql("SELECT MetricName, Value FROM otel_metrics_gauge WHERE ServiceName = {s:String}", s=unique) == [
        ("queue.depth", 7.0)
    ]


def test_otlp_json_request_uses_hex_ids_and_gets_a_json_answer(server, unique):
    trace_id, span_id = "5b8efff798038103d269b633813fc60c", "eee19b7ec3c1b174"
    document = {
        "resourceSpans": [
            {
                "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": unique}}]},
                "scopeSpans": [
                    {
                        "scope": {"name": "raw"},
                        "spans": [
                            {
                                "traceId": trace_id,
                                "spanId": span_id,
                                "name": "json span",
                                "kind": 3,
                                "startTimeUnixNano": "1764547200000000000",
                                "endTimeUnixNano": "1764547200500000000",
                                "attributes": [{"key": "n", "value": {"intValue": "42"}}],
                                "status": {"code": 2, "message": "boom"},
                            }
                        ],
                    }
                ],
            }
        ]
    }
    answer = httpx.post(
        f"{server.http_url}/v1/traces", content=json.dumps(document), headers={"content-type": "application/json"}
    )
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/json"
    assert answer.json() == {}
    assert server.sql(
        "SELECT TraceId, SpanId, SpanKind, StatusCode, SpanAttributes, Duration FROM otel_traces "
        "WHERE ServiceName = {s:String}",
        s=unique,
    ) == [(trace_id, span_id, "Client", "Error", {"n": "42"}, 500_000_000)]


def test_the_first_read_after_an_acknowledgement_sees_its_rows(server, unique):
    """Acknowledged once in the write-ahead log: the API's next read waits for the committer, so it sees them."""
    exporter = GrpcSpanExporter(endpoint=server.grpc_endpoint, insecure=True)
    _send_trace(exporter, unique)  # returns once acknowledged
    page = httpx.get(f"{server.http_url}/api/spans", params={"service": unique}, timeout=60)
    assert len(page.json()["items"]) == 2
    assert "x-harborlight-unstored-requests" not in page.headers
