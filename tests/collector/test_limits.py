"""Size limits: long values are cut at a character boundary and flagged, extra attributes dropped and
counted, oversized requests refused with a reason; nothing is shortened silently."""

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from collector.errors import TooLarge
from collector.limits import DROPPED_FLAG, TRUNCATED_FLAG, Limits
from collector.signals import SIGNALS
from collector.validate import check_request
from storage import Signal
from tests.support.otlp import attrs, logs_request, traces_request

TRACES, LOGS = SIGNALS[Signal.traces], SIGNALS[Signal.logs]


def _attributes(span) -> dict[str, str]:
    return {kv.key: kv.value.string_value for kv in span.attributes}


def test_a_long_value_is_cut_at_a_character_boundary_and_the_span_flagged():
    request = traces_request("svc", 2)
    span = request.resource_spans[0].scope_spans[0].spans[1]
    span.attributes.extend(attrs(prompt="é" * 100, short="ok"))
    checked = check_request(TRACES, request.SerializeToString(), Limits(max_attribute_value_bytes=51))
    kept = ExportTraceServiceRequest.FromString(checked.payload).resource_spans[0].scope_spans[0].spans[1]
    values = _attributes(kept)
    assert values["prompt"] == "é" * 25  # 50 bytes: the 26th character would be split
    assert values["short"] == "ok"
    assert values[TRUNCATED_FLAG] == "prompt"
    assert (checked.accepted, checked.rejected, checked.truncated) == (2, 0, 1)


def test_attributes_beyond_the_limit_are_dropped_and_counted():
    request = traces_request("svc", 1)
    span = request.resource_spans[0].scope_spans[0].spans[0]
    span.attributes.extend(attrs(**{f"k{i}": "v" for i in range(10)}))
    checked = check_request(TRACES, request.SerializeToString(), Limits(max_attributes_per_item=4))
    kept = ExportTraceServiceRequest.FromString(checked.payload).resource_spans[0].scope_spans[0].spans[0]
    values = _attributes(kept)
    assert len(values) == 5 and values[DROPPED_FLAG] == "8"  # 12 sent, 4 kept, plus the flag
    assert checked.truncated == 1


def test_a_long_log_body_is_cut_and_flagged():
    request = logs_request("svc", 1)
    request.resource_logs[0].scope_logs[0].log_records[0].body.string_value = "x" * 1000
    checked = check_request(LOGS, request.SerializeToString(), Limits(max_attribute_value_bytes=100))
    assert checked.truncated == 1 and checked.payload.count(b"x" * 100) == 1 and b"x" * 101 not in checked.payload


def test_requests_within_the_limits_are_passed_on_byte_for_byte():
    body = traces_request("svc", 20).SerializeToString()
    assert check_request(TRACES, body, Limits()).payload is body


def test_too_many_items_in_one_request_is_refused_with_what_to_do():
    body = traces_request("svc", 11).SerializeToString()
    with pytest.raises(TooLarge, match="more than 10 spans; send smaller batches"):
        check_request(TRACES, body, Limits(max_items_per_request=10))


def test_counts_are_kept_per_service_and_job():
    request = traces_request("agent-a", 3, job="job-1")
    other = traces_request("agent-b", 2, job="job-2")
    request.resource_spans.extend(other.resource_spans)
    request.resource_spans[1].scope_spans[0].spans[0].trace_id = b"short"
    checked = check_request(TRACES, request.SerializeToString())
    assert {k: (c.accepted, c.rejected) for k, c in checked.sources.items()} == {
        ("agent-a", "job-1"): (3, 0), ("agent-b", "job-2"): (1, 1),
    }
