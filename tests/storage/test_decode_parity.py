"""The engine's decoding of OTLP bytes matches a plain Python reference, value for value."""

import httpx
import pytest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

from harborlight.commit.nested_values import may_hold_nested_values
from tests.support.otlp import traces_request
from tests.support.reference_decoder import span_rows

COLUMNS = [
    "TraceId",
    "SpanId",
    "ParentSpanId",
    "TraceState",
    "SpanName",
    "SpanKind",
    "ServiceName",
    "ResourceAttributes",
    "ScopeName",
    "ScopeVersion",
    "SpanAttributes",
    "Duration",
    "StatusCode",
    "StatusMessage",
    "Events.Name",
    "Events.Attributes",
    "Links.TraceId",
    "Links.SpanId",
    "Links.Attributes",
]


def _value(**kw) -> AnyValue:
    return AnyValue(**kw)


def _awkward_request(service: str, nested: bool = True):
    request = traces_request(service, 6)
    rs = request.resource_spans[0]
    rs.resource.attributes.add(key="host.arch", value=_value(string_value="amd64"))
    scope = rs.scope_spans[0]
    scope.scope.version = "9.9.9"
    spans = scope.spans
    values = {
        "unicode": _value(string_value='日本語 "quoted" \\ back\nnewline'),
        "empty": _value(string_value=""),
        "neg": _value(int_value=-42),
        "big": _value(int_value=2**62),
        "zero": _value(int_value=0),
        "half": _value(double_value=0.5),
        "whole": _value(double_value=3.0),
        "tiny": _value(double_value=1.25e-5),
        "tinier": _value(double_value=1.5e-7),
        "huge": _value(double_value=1e21),
        "neg_half": _value(double_value=-0.5),
        "yes": _value(bool_value=True),
        "no": _value(bool_value=False),
        "raw": _value(bytes_value=b"\x00\xffbin"),
    }
    spans[1].attributes.extend(KeyValue(key=k, value=v) for k, v in values.items())
    spans[2].attributes.add(key="long", value=_value(string_value="é" * 20_000))  # a three-byte length
    spans[2].attributes.add(key="no_value")
    if nested:
        _add_nested_values(spans[2])
    for i, (kind, code) in enumerate([(0, 0), (2, 1), (3, 2), (4, 0), (5, 2)]):
        spans[i + 1].kind, spans[i + 1].status.code = kind, code
    spans[3].status.message = "boom"
    spans[3].trace_state = "vendor=x"
    event = spans[4].events.add(time_unix_nano=spans[4].start_time_unix_nano + 7, name="exception")
    event.attributes.add(key="exception.type", value=_value(string_value="ValueError"))
    spans[4].events.add(time_unix_nano=spans[4].start_time_unix_nano + 9, name="retry")
    link = spans[5].links.add(trace_id=bytes(range(1, 17)), span_id=bytes(range(1, 9)))
    link.attributes.add(key="link.kind", value=_value(string_value="follows"))
    return request


def _add_nested_values(span) -> None:
    array = span.attributes.add(key="finish_reasons").value.array_value.values
    array.add(string_value="stop")
    array.add(int_value=3)
    array.add(bool_value=False)
    array.add(string_value='a"b')
    array.add(string_value="x" * 300)  # a two-byte length inside the array
    array.add(double_value=-2.5)
    kvlist = span.attributes.add(key="usage").value.kvlist_value.values
    kvlist.add(key="input", value=_value(int_value=10))
    kvlist.add(key="model", value=_value(string_value="m"))
    kvlist.add(key="k" * 200, value=_value(double_value=0.25))


@pytest.mark.parametrize("nested", [True, False], ids=["nested decoding", "scalar decoding"])
def test_engine_rows_equal_the_reference_decoder(server, unique, nested):
    request = _awkward_request(unique, nested)
    assert may_hold_nested_values(request.SerializeToString()) is nested
    answer = httpx.post(
        f"{server.http_url}/v1/traces",
        content=request.SerializeToString(),
        headers={"content-type": "application/x-protobuf"},
    )
    assert answer.status_code == 200
    cols = ", ".join(f"`{c}`" for c in COLUMNS)
    rows = server.sql(
        f"SELECT {cols}, toUnixTimestamp64Nano(Timestamp), arrayMap(t -> toUnixTimestamp64Nano(t), `Events.Timestamp`) "
        "FROM otel_traces WHERE ServiceName = {s:String} ORDER BY SpanId",
        s=unique,
    )
    got = [dict(zip(COLUMNS + ["ts", "Events.ts"], row, strict=True)) for row in rows]
    expected = sorted(span_rows(request), key=lambda r: r["SpanId"])
    assert len(got) == len(expected) == 6
    for g, e in zip(got, expected, strict=True):
        for key in e:
            assert g[key] == e[key], key
