"""Arrays and maps in OTLP values, stored as the OpenTelemetry Collector's ClickHouse exporter stores them.

The exporter writes every attribute value and log body as pdata's `Value.AsString()`: an array or a map
becomes JSON of its raw form at any depth (`json.Encoder` with HTML escaping off: map keys sorted, bytes
base64, an empty value `null`, empty bytes inside a container `null`, and a NaN or infinity anywhere
inside makes the whole text empty, as Go's encoder fails on it). The engine decodes only scalar values
(harborlight/commit/any_value_sql.py), so as a request is committed each array or map value it holds is replaced by a
string value carrying exactly that text: the stored text is the same, whatever the depth, and the
write-ahead log keeps the request as it was sent.
"""

import base64
import math
import re
from collections.abc import Iterable, Iterator
from decimal import Decimal

from google.protobuf.message import Message
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from harborlight.store.signal import Signal

_REQUESTS: dict[Signal, type[Message]] = {
    Signal.traces: ExportTraceServiceRequest,
    Signal.logs: ExportLogsServiceRequest,
    Signal.metrics: ExportMetricsServiceRequest,
}


class _Unencodable(ValueError):
    """A NaN or infinity inside an array or map: Go's JSON encoder refuses the whole value."""


# Go's encoding/json string escapes (HTML escaping off): the two-character forms, \u00XX for the
# other control characters, and U+2028 / U+2029 always.
_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}
_NEEDS_ESCAPE = re.compile('["\\\\\x00-\x1f\u2028\u2029]')


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return _ESCAPES.get(char) or f"\\u{ord(char):04x}"


def _json_string(text: str) -> str:
    return '"' + _NEEDS_ESCAPE.sub(_escape, text) + '"'


def _go_float(value: float) -> str:
    """strconv's shortest form as encoding/json writes a float64 (ECMAScript's number to string)."""
    if math.isnan(value) or math.isinf(value):
        raise _Unencodable(value)
    text = repr(value)
    magnitude = abs(value)
    if magnitude != 0 and (magnitude < 1e-6 or magnitude >= 1e21):
        # repr already uses an exponent here, with at least two digits; Go drops the 0 of "e-07"
        return re.sub(r"e-0(\d)$", r"e-\1", text)
    return format(Decimal(text), "f").removesuffix(".0")  # positional, the same shortest digits


def _raw_json(value: Message) -> str:
    """The JSON encoding of an AnyValue's raw (AsRaw) form."""
    kind = value.WhichOneof("value")
    if kind == "string_value":
        return _json_string(value.string_value)
    if kind == "int_value":
        return str(value.int_value)
    if kind == "bool_value":
        return "true" if value.bool_value else "false"
    if kind == "double_value":
        return _go_float(value.double_value)
    if kind == "bytes_value":
        return '"' + base64.b64encode(value.bytes_value).decode() + '"' if value.bytes_value else "null"
    if kind == "array_value":
        return "[" + ",".join(_raw_json(v) for v in value.array_value.values) + "]"
    if kind == "kvlist_value":
        return _map_json(value.kvlist_value.values)
    return "null"


def _map_json(pairs: Iterable[Message]) -> str:
    raw = {kv.key: kv.value for kv in pairs}  # a repeated key: the last one wins, as in AsRaw
    return "{" + ",".join(f"{_json_string(k)}:{_raw_json(raw[k])}" for k in sorted(raw)) + "}"


def structured_text(value: Message) -> str:
    """AsString() of an AnyValue holding an array or a map."""
    try:
        return _raw_json(value)
    except _Unencodable:
        return ""


def _values(signal: Signal, request: Message) -> Iterator[Message]:
    """Every AnyValue of a request that is stored as a column value (attributes at every level, log bodies)."""

    def attributes(*owners: Message) -> Iterator[Message]:
        for owner in owners:
            for kv in owner.attributes:
                yield kv.value

    if signal is Signal.traces:
        for rs in request.resource_spans:
            yield from attributes(rs.resource)
            for ss in rs.scope_spans:
                yield from attributes(ss.scope)
                for span in ss.spans:
                    yield from attributes(span, *span.events, *span.links)
    elif signal is Signal.logs:
        for rl in request.resource_logs:
            yield from attributes(rl.resource)
            for sl in rl.scope_logs:
                yield from attributes(sl.scope)
                for record in sl.log_records:
                    yield record.body
                    yield from attributes(record)
    else:
        for rm in request.resource_metrics:
            yield from attributes(rm.resource)
            for sm in rm.scope_metrics:
                yield from attributes(sm.scope)
                for metric in sm.metrics:
                    kind = metric.WhichOneof("data")
                    for point in getattr(metric, kind).data_points if kind else ():
                        yield from attributes(point)
                        for exemplar in getattr(point, "exemplars", ()):
                            for kv in exemplar.filtered_attributes:
                                yield kv.value


def flatten_structured_values(signal: Signal, request: Message) -> bool:
    """Replaces each array or map value of `request` by a string value holding its stored text, in
    place; whether any was replaced."""
    replaced = False
    for value in _values(signal, request):
        if value.WhichOneof("value") in ("array_value", "kvlist_value"):
            text = structured_text(value)
            value.Clear()
            value.string_value = text
            replaced = True
    return replaced


def with_structured_values_as_text(signal: Signal, request: bytes) -> bytes:
    """The request (validated: its strings are UTF-8) with each array or map value as its stored text."""
    message = _REQUESTS[signal].FromString(request)
    return message.SerializeToString() if flatten_structured_values(signal, message) else request
