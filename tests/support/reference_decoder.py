"""A plain, slow Python rendering of the exporter's row values, to check the engine's decoding against.

It follows the OpenTelemetry Collector ClickHouse exporter: hex ids, pdata SpanKind / StatusCode
names, Duration = end - start, every attribute value as text (AnyValue.AsString: JSON for arrays and
maps at any depth, keys sorted,
as Go's json.Encoder writes them without HTML escaping; base64 for bytes).
"""

import base64
import json
import math
import re
import uuid
from decimal import Decimal

import numpy
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


_FLOAT = f"float-{uuid.uuid4().hex}-"  # a placeholder no generated string holds


def _go_float(value: float) -> str:
    """encoding/json's float64: positional shortest digits, else an exponent without a leading 0."""
    magnitude = abs(value)
    if magnitude != 0 and (magnitude < 1e-6 or magnitude >= 1e21):
        return _number(value)
    return numpy.format_float_positional(value, unique=True, trim="-")


def _raw(value: AnyValue, floats: list[float]):
    """pdata's AsRaw(), with each double replaced by a placeholder (Python's json writes floats its own way)."""
    kind = value.WhichOneof("value")
    if kind in ("string_value", "bool_value", "int_value"):
        return getattr(value, kind)
    if kind == "double_value":
        if math.isnan(value.double_value) or math.isinf(value.double_value):
            raise ValueError("json: unsupported value")
        floats.append(value.double_value)
        return f"{_FLOAT}{len(floats) - 1}"
    if kind == "bytes_value":  # a nil []byte when empty: null
        return base64.b64encode(value.bytes_value).decode() if value.bytes_value else None
    if kind == "array_value":
        return [_raw(v, floats) for v in value.array_value.values]
    if kind == "kvlist_value":
        entries = {kv.key: kv.value for kv in value.kvlist_value.values}  # a repeated key: the last one is kept
        return {key: _raw(entry, floats) for key, entry in entries.items()}
    return None


def _go_json(value: AnyValue) -> str:
    """json.Encoder with SetEscapeHTML(false), as pdata's AsString() uses for arrays and maps; "" when
    Go's encoder fails (a NaN or infinity inside)."""
    floats: list[float] = []
    try:
        text = json.dumps(_raw(value, floats), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except ValueError:
        return ""
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")  # Go always escapes both
    return re.sub(f'"{_FLOAT}(\\d+)"', lambda m: _go_float(floats[int(m.group(1))]), text)


def as_string(value: AnyValue) -> str:
    """pdata's Value.AsString()."""
    kind = value.WhichOneof("value")
    if kind == "string_value":
        return value.string_value
    if kind == "bool_value":
        return "true" if value.bool_value else "false"
    if kind == "int_value":
        return str(value.int_value)
    if kind == "double_value":
        if math.isnan(value.double_value):
            return "NaN"
        if math.isinf(value.double_value):
            return "Infinity" if value.double_value > 0 else "-Infinity"
        return _go_float(value.double_value)
    if kind == "bytes_value":
        return base64.b64encode(value.bytes_value).decode()
    if kind in ("array_value", "kvlist_value"):
        return _go_json(value)
    return ""


def attributes(kvs) -> dict[str, str]:
    return {kv.key: as_string(kv.value) for kv in kvs}


def span_rows(request: ExportTraceServiceRequest) -> list[dict]:
    rows = []
    for rs in request.resource_spans:
        resource = attributes(rs.resource.attributes)
        for ss in rs.scope_spans:
            for s in ss.spans:
                rows.append(
                    {
                        "TraceId": s.trace_id.hex(),
                        "SpanId": s.span_id.hex(),
                        "ParentSpanId": s.parent_span_id.hex(),
                        "TraceState": s.trace_state,
                        "SpanName": s.name,
                        "SpanKind": KINDS[s.kind],
                        "ServiceName": resource.get("service.name", ""),
                        "ResourceAttributes": resource,
                        "ScopeName": ss.scope.name,
                        "ScopeVersion": ss.scope.version,
                        "SpanAttributes": attributes(s.attributes),
                        "Duration": s.end_time_unix_nano - s.start_time_unix_nano,
                        "StatusCode": CODES[s.status.code],
                        "StatusMessage": s.status.message,
                        "Events.Name": [e.name for e in s.events],
                        "Events.Attributes": [attributes(e.attributes) for e in s.events],
                        "Links.TraceId": [link.trace_id.hex() for link in s.links],
                        "Links.SpanId": [link.span_id.hex() for link in s.links],
                        "Links.Attributes": [attributes(link.attributes) for link in s.links],
                        "ts": s.start_time_unix_nano,
                        "Events.ts": [e.time_unix_nano for e in s.events],
                    }
                )
    return rows
