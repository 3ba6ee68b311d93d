"""The three OTLP signals as rows of one table: what differs between traces, logs and metrics."""

from dataclasses import dataclass

from google.protobuf.message import Message
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2 as logs_pb
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2 as metrics_pb
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2 as trace_pb

from harborlight.store import Signal


@dataclass(frozen=True)
class SignalSpec:
    signal: Signal
    http_path: str
    grpc_method: str
    request: type[Message]
    response: type[Message]
    item: str  # what one item is called in messages ("span", "log record", "data point")
    rejected_field: str  # the partial_success counter of the response


SIGNALS: dict[Signal, SignalSpec] = {
    s.signal: s
    for s in (
        SignalSpec(
            Signal.traces,
            "/v1/traces",
            "/opentelemetry.proto.collector.trace.v1.TraceService/Export",
            trace_pb.ExportTraceServiceRequest,
            trace_pb.ExportTraceServiceResponse,
            "span",
            "rejected_spans",
        ),
        SignalSpec(
            Signal.logs,
            "/v1/logs",
            "/opentelemetry.proto.collector.logs.v1.LogsService/Export",
            logs_pb.ExportLogsServiceRequest,
            logs_pb.ExportLogsServiceResponse,
            "log record",
            "rejected_log_records",
        ),
        SignalSpec(
            Signal.metrics,
            "/v1/metrics",
            "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export",
            metrics_pb.ExportMetricsServiceRequest,
            metrics_pb.ExportMetricsServiceResponse,
            "data point",
            "rejected_data_points",
        ),
    )
}


def response(spec: SignalSpec, rejected: int, message: str) -> Message:
    """An Export response; partial_success is set only when something was rejected, as the spec asks."""
    resp = spec.response()
    if rejected:
        setattr(resp.partial_success, spec.rejected_field, rejected)
        resp.partial_success.error_message = message
    return resp
