"""The byte check that routes a commit to the scalar or the nested decoding never misses a nested value."""

import random

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from harborlight.commit.nested_values import may_hold_nested_values
from tests.support.otlp import traces_request


def _array(*values: AnyValue) -> AnyValue:
    value = AnyValue()
    value.array_value.SetInParent()
    value.array_value.values.extend(values)
    return value


def _kvlist(**values: AnyValue) -> AnyValue:
    value = AnyValue()
    value.kvlist_value.SetInParent()
    for key, v in values.items():
        value.kvlist_value.values.add(key=key, value=v)
    return value


NESTED_VALUES = {
    "empty array": _array(),
    "one string": _array(AnyValue(string_value="stop")),
    "a long array (two-byte lengths)": _array(*(AnyValue(string_value="x" * 50) for _ in range(10))),
    "a very long array (three-byte lengths)": _array(AnyValue(string_value="é" * 40_000)),
    "empty kvlist": _kvlist(),
    "kvlist": _kvlist(input=AnyValue(int_value=3)),
}


def test_every_place_a_nested_value_can_sit_is_found():
    for label, value in NESTED_VALUES.items():
        for place in ("span", "resource", "scope", "event", "link"):
            request = traces_request("svc", 3)
            rs = request.resource_spans[0]
            span = rs.scope_spans[0].spans[1]
            holder = {
                "span": span.attributes,
                "resource": rs.resource.attributes,
                "scope": rs.scope_spans[0].scope.attributes,
                "event": span.events.add(time_unix_nano=span.start_time_unix_nano, name="e").attributes,
                "link": span.links.add(trace_id=b"\x01" * 16, span_id=b"\x02" * 8).attributes,
            }[place]
            holder.add(key="k", value=value)
            assert may_hold_nested_values(request.SerializeToString()), (label, place)


def test_a_nested_log_body_is_found():
    for label, value in NESTED_VALUES.items():
        request = ExportLogsServiceRequest()
        record = request.resource_logs.add().scope_logs.add().log_records.add(time_unix_nano=1)
        record.body.CopyFrom(value)
        assert may_hold_nested_values(request.SerializeToString()), label


def test_scalars_take_the_scalar_decoding_even_when_their_bytes_look_nested():
    request = traces_request("svc", 50)
    span = request.resource_spans[0].scope_spans[0].spans[0]
    # The screen's byte pattern inside a string and inside a span id: neither is a nested value.
    span.attributes.add(key="tricky", value=AnyValue(string_value="\x12\x05\x2a\x00 and \x12\x05\x32\x07\x0a"))
    span.span_id = b"\x2a\x03\x0a" + bytes(5)
    assert not may_hold_nested_values(request.SerializeToString())


def test_random_scalar_traffic_rarely_takes_the_nested_path():
    rng = random.Random(3)
    requests = []
    for _ in range(40):
        request = traces_request("svc", 200)
        for span in request.resource_spans[0].scope_spans[0].spans:
            span.trace_id, span.span_id = rng.randbytes(16), rng.randbytes(8)
            span.attributes.add(key="n", value=AnyValue(int_value=rng.randint(0, 2**40)))
        requests.append(request.SerializeToString())
    flagged = sum(may_hold_nested_values(r) for r in requests)
    assert flagged <= 4  # false positives cost speed, never correctness
