"""A plain, slow Python rendering of the exporter's row values, to check the engine's decoding against.

It follows the OpenTelemetry Collector ClickHouse exporter: hex ids, pdata SpanKind / StatusCode
names, Duration = end - start, every attribute value as text (AnyValue.AsString: JSON for arrays and
maps, base64 for bytes).
"""

import base64
import json
from decimal import Decimal

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

KINDS = ["Unspecified", "Internal", "Server", "Client", "Producer", "Consumer"]
CODES = ["Unset", "Ok", "Error"]


def _number(value: float) -> str:
    """pdata's float64AsString: ECMAScript number-to-string (positional between 1e-6 and 1e21)."""
    magnitude = abs(value)
    if magnitude != 0 and (magnitude < 1e-6 or magnitude >= 1e21):
        mantissa, exponent = repr(value).replace("E", "e").split("e")
        return f"{mantissa.removesuffix('.0')}e{'+' if int(exponent) > 0 else '-'}{abs(int(exponent))}"
    if value.is_integer():
        return str(int(value))
    return format(Decimal(repr(value)), "f")


def _json(value: AnyValue):
    kind = value.WhichOneof("value")
    if kind == "string_value":
        return value.string_value
    if kind == "bool_value":
        return value.bool_value
    if kind == "int_value":
        return value.int_value
    if kind == "double_value":
        return value.double_value
    if kind == "bytes_value":
        return base64.b64encode(value.bytes_value).decode()
    return None


def as_string(value: AnyValue) -> str:
    kind = value.WhichOneof("value")
    if kind == "string_value":
        return value.string_value
    if kind == "bool_value":
        return "true" if value.bool_value else "false"
    if kind == "int_value":
        return str(value.int_value)
    if kind == "double_value":
        return _number(value.double_value)
    if kind == "bytes_value":
        return base64.b64encode(value.bytes_value).decode()
    if kind == "array_value":
        return json.dumps([_json(v) for v in value.array_value.values], separators=(",", ":"), ensure_ascii=False)
    if kind == "kvlist_value":
        return json.dumps({kv.key: _json(kv.value) for kv in value.kvlist_value.values},
                          separators=(",", ":"), ensure_ascii=False)
    return ""


def attributes(kvs) -> dict[str, str]:
    return {kv.key: as_string(kv.value) for kv in kvs}


def span_rows(request: ExportTraceServiceRequest) -> list[dict]:
    rows = []
    for rs in request.resource_spans:
        resource = attributes(rs.resource.attributes)
        for ss in rs.scope_spans:
            for s in ss.spans:
                rows.append({
                    "TraceId": s.trace_id.hex(), "SpanId": s.span_id.hex(), "ParentSpanId": s.parent_span_id.hex(),
                    "TraceState": s.trace_state, "SpanName": s.name, "SpanKind": KINDS[s.kind],
                    "ServiceName": resource.get("service.name", ""), "ResourceAttributes": resource,
                    "ScopeName": ss.scope.name, "ScopeVersion": ss.scope.version,
                    "SpanAttributes": attributes(s.attributes),
                    "Duration": s.end_time_unix_nano - s.start_time_unix_nano,
                    "StatusCode": CODES[s.status.code], "StatusMessage": s.status.message,
                    "Events.Name": [e.name for e in s.events],
                    "Events.Attributes": [attributes(e.attributes) for e in s.events],
                    "Links.TraceId": [link.trace_id.hex() for link in s.links],
                    "Links.SpanId": [link.span_id.hex() for link in s.links],
                    "Links.Attributes": [attributes(link.attributes) for link in s.links],
                    "ts": s.start_time_unix_nano,
                    "Events.ts": [e.time_unix_nano for e in s.events],
                })
    return rows
