"""Size limits: long values are cut at a character boundary and flagged, extra attributes dropped and
counted, oversized requests refused with a reason; nothing is shortened silently."""

import httpx
import pytest
from google.protobuf.descriptor import FieldDescriptor
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, ArrayValue, InstrumentationScope, KeyValue, KeyValueList
from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord, ResourceLogs, ScopeLogs
from opentelemetry.proto.metrics.v1.metrics_pb2 import (
    Exemplar,
    Gauge,
    Metric,
    NumberDataPoint,
    ResourceMetrics,
    ScopeMetrics,
)
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span, Status

from harborlight.ingest.limits import DROPPED_FLAG, TRUNCATED_FLAG, Limits
from harborlight.ingest.signals import SIGNALS
from harborlight.ingest.validate import check_request
from harborlight.store import Signal
from harborlight.write_errors import TooLarge
from tests.support.otlp import T0, attrs, logs_request, traces_request

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
        ("agent-a", "job-1"): (3, 0),
        ("agent-b", "job-2"): (1, 1),
    }


# Fuzzing: random requests with long strings and long lists at every place the data model has them. A
# generic walk over every stored field (not the limits' own table of places) checks what comes out.
FUZZ_LIMITS = Limits(max_attributes_per_item=3, max_attribute_value_bytes=12)
_NOT_STORED = {"metadata", "entity_refs"}  # fields the engine's decoding does not read
_IDS = {"trace_id", "span_id", "parent_span_id"}  # fixed lengths, checked by validation
_FLAGS = {TRUNCATED_FLAG, DROPPED_FLAG}

_text = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=20).filter(lambda t: t not in _FLAGS)
_values = st.recursive(
    st.builds(lambda s: AnyValue(string_value=s), _text)
    | st.builds(lambda b: AnyValue(bytes_value=b), st.binary(max_size=20))
    | st.builds(lambda i: AnyValue(int_value=i), st.integers(-5, 5)),
    lambda inner: (
        st.builds(lambda vs: AnyValue(array_value=ArrayValue(values=vs)), st.lists(inner, max_size=5))
        | st.builds(
            lambda kvs: AnyValue(kvlist_value=KeyValueList(values=[KeyValue(key=k, value=v) for k, v in kvs])),
            st.lists(st.tuples(_text, inner), max_size=5),
        )
    ),
    max_leaves=8,
)
_attribute_lists = st.lists(st.builds(lambda k, v: KeyValue(key=k, value=v), _text, _values), max_size=5)


def _over(message, limits: Limits) -> list[str]:
    """Every stored string or list in `message` that breaks a limit (flags not counted)."""
    found = []
    ours = message.DESCRIPTOR.name == "KeyValue" and message.key in _FLAGS  # the flags' own names
    for fd, value in message.ListFields():
        if fd.name in _NOT_STORED or fd.name in _IDS or (ours and fd.name == "key"):
            continue
        values = list(value) if fd.is_repeated else [value]
        if fd.type == FieldDescriptor.TYPE_MESSAGE:
            own = [v for v in values if fd.message_type.name != "KeyValue" or v.key not in _FLAGS]
            if fd.message_type.name in ("KeyValue", "AnyValue") and len(own) > limits.max_attributes_per_item:
                found.append(f"{fd.full_name}: {len(own)} entries")
            for v in values:
                found += _over(v, limits)
        elif fd.type in (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES):
            found += [
                fd.full_name
                for v in values
                if len(v if isinstance(v, bytes) else v.encode()) > limits.max_attribute_value_bytes
            ]
    return found


def _flagged(attributes) -> bool:
    return any(kv.key in _FLAGS for kv in attributes)


@st.composite
def _requests(draw):
    kind = draw(st.sampled_from(["traces", "logs", "metrics"]))
    resource = Resource(attributes=draw(_attribute_lists))
    scope = InstrumentationScope(name=draw(_text), version=draw(_text), attributes=draw(_attribute_lists))
    n = draw(st.integers(1, 3))
    if kind == "traces":
        spans = [
            Span(
                trace_id=b"\x01" * 16,
                span_id=bytes([i + 1]) * 8,
                name=draw(_text),
                trace_state=draw(_text),
                start_time_unix_nano=T0,
                end_time_unix_nano=T0 + 1,
                attributes=draw(_attribute_lists),
                status=Status(message=draw(_text)),
                events=[
                    Span.Event(time_unix_nano=T0, name=draw(_text), attributes=draw(_attribute_lists))
                    for _ in range(draw(st.integers(0, 2)))
                ],
                links=[
                    Span.Link(
                        trace_id=b"\x02" * 16,
                        span_id=b"\x03" * 8,
                        trace_state=draw(_text),
                        attributes=draw(_attribute_lists),
                    )
                    for _ in range(draw(st.integers(0, 2)))
                ],
            )
            for i in range(n)
        ]
        request = ExportTraceServiceRequest(
            resource_spans=[
                ResourceSpans(
                    resource=resource,
                    schema_url=draw(_text),
                    scope_spans=[ScopeSpans(scope=scope, spans=spans, schema_url=draw(_text))],
                )
            ]
        )
        return (
            SIGNALS[Signal.traces],
            request,
            lambda r: r.resource_spans[0],
            lambda r: r.resource_spans[0].scope_spans[0].spans,
        )
    if kind == "logs":
        records = [
            LogRecord(
                time_unix_nano=T0,
                body=draw(_values),
                severity_text=draw(_text),
                event_name=draw(_text),
                attributes=draw(_attribute_lists),
            )
            for _ in range(n)
        ]
        request = ExportLogsServiceRequest(
            resource_logs=[
                ResourceLogs(
                    resource=resource,
                    schema_url=draw(_text),
                    scope_logs=[ScopeLogs(scope=scope, log_records=records, schema_url=draw(_text))],
                )
            ]
        )
        return (
            SIGNALS[Signal.logs],
            request,
            lambda r: r.resource_logs[0],
            lambda r: r.resource_logs[0].scope_logs[0].log_records,
        )
    points = [
        NumberDataPoint(
            time_unix_nano=T0,
            as_int=1,
            attributes=draw(_attribute_lists),
            exemplars=[Exemplar(time_unix_nano=T0, as_int=1, filtered_attributes=draw(_attribute_lists))],
        )
        for _ in range(n)
    ]
    metric = Metric(name=draw(_text), description=draw(_text), unit=draw(_text), gauge=Gauge(data_points=points))
    request = ExportMetricsServiceRequest(
        resource_metrics=[
            ResourceMetrics(
                resource=resource,
                schema_url=draw(_text),
                scope_metrics=[ScopeMetrics(scope=scope, metrics=[metric], schema_url=draw(_text))],
            )
        ]
    )
    return (
        SIGNALS[Signal.metrics],
        request,
        lambda r: r.resource_metrics[0],
        lambda r: r.resource_metrics[0].scope_metrics[0].metrics[0].gauge.data_points,
    )


@settings(max_examples=300, deadline=None)
@given(case=_requests())
def test_nothing_stored_breaks_a_limit_and_nothing_is_cut_without_a_flag(case):
    spec, request, resource_of, items_of = case
    body = request.SerializeToString()
    checked = check_request(spec, body, FUZZ_LIMITS)
    stored = spec.request.FromString(checked.payload)
    assert _over(stored, FUZZ_LIMITS) == []
    if not _over(request, FUZZ_LIMITS):
        assert checked.payload == body and checked.truncated == 0
        return
    sent_block, kept_block = resource_of(request), resource_of(stored)
    resource_over = _over(sent_block.resource, FUZZ_LIMITS) or len(sent_block.schema_url.encode()) > 12
    assert _flagged(kept_block.resource.attributes) == bool(resource_over)
    container = getattr(sent_block, spec.request.DESCRIPTOR.fields[0].message_type.fields[1].name)[0]
    scope_over = _over(container.scope, FUZZ_LIMITS) or len(container.schema_url.encode()) > 12
    kept_container = getattr(kept_block, spec.request.DESCRIPTOR.fields[0].message_type.fields[1].name)[0]
    assert _flagged(kept_container.scope.attributes) == bool(scope_over)
    metric_over = spec.signal is Signal.metrics and bool(
        _over(
            Metric(
                name=container.metrics[0].name,
                description=container.metrics[0].description,
                unit=container.metrics[0].unit,
            ),
            FUZZ_LIMITS,
        )
    )
    for sent, kept in zip(items_of(request), items_of(stored), strict=True):
        assert _flagged(kept.attributes) == bool(_over(sent, FUZZ_LIMITS) or metric_over)
    assert checked.truncated > 0


def test_the_attacks_values_are_cut_in_every_part_of_the_data_model():
    """What was stored whole before: a 10 MiB resource value, 100,000 resource attributes, a 10 MiB span
    name, 100,000 event attributes, a 10 MiB string nested in a kvlist log body."""
    big = "x" * (10 << 20)
    traces = traces_request("attack", 1)
    rs = traces.resource_spans[0]
    rs.resource.attributes.extend(attrs(huge=big))
    rs.resource.attributes.extend(attrs(**{f"r{i}": "v" for i in range(100_000)}))
    span = rs.scope_spans[0].spans[0]
    span.name = big
    span.events.add(time_unix_nano=T0, name="e").attributes.extend(attrs(**{f"e{i}": "v" for i in range(100_000)}))
    checked = check_request(TRACES, traces.SerializeToString(), Limits(max_expanded_request_bytes=1 << 30))
    kept = ExportTraceServiceRequest.FromString(checked.payload).resource_spans[0]
    resource = _attributes(kept.resource)
    assert len(resource) == 512 + 2 and resource[DROPPED_FLAG] == str(100_000 + 2 - 512)
    assert len(kept.scope_spans[0].spans[0].name) == 256 * 1024
    assert len(kept.scope_spans[0].spans[0].events[0].attributes) == 512
    assert set(_attributes(kept.scope_spans[0].spans[0])[TRUNCATED_FLAG].split(",")) == {"name"}
    assert _attributes(kept.scope_spans[0].spans[0])[DROPPED_FLAG] == str(100_000 - 512)

    logs = logs_request("attack", 1)
    body = logs.resource_logs[0].scope_logs[0].log_records[0].body
    body.kvlist_value.values.add(key="prompt").value.string_value = big
    checked = check_request(LOGS, logs.SerializeToString())
    record = ExportLogsServiceRequest.FromString(checked.payload).resource_logs[0].scope_logs[0].log_records[0]
    assert len(record.body.kvlist_value.values[0].value.string_value) == 256 * 1024
    assert _attributes(record)[TRUNCATED_FLAG] == "body"


def test_the_stored_rows_hold_the_cut_values_and_their_flags(server, unique):
    big = "x" * (6 << 20)
    traces = traces_request(unique, 2)
    rs = traces.resource_spans[0]
    rs.resource.attributes.extend(attrs(huge=big))
    span = rs.scope_spans[0].spans[1]
    span.name = big
    span.events.add(time_unix_nano=T0, name="e").attributes.extend(attrs(**{f"e{i}": "v" for i in range(100_000)}))
    answer = httpx.post(
        f"{server.http_url}/v1/traces",
        content=traces.SerializeToString(),
        headers={"content-type": "application/x-protobuf"},
        timeout=60,
    )
    assert answer.status_code == 200
    rows = server.sql(
        "SELECT length(ResourceAttributes['huge']), ResourceAttributes['harborlight.truncated'], length(SpanName), "
        "length(Events.Attributes[1]), SpanAttributes['harborlight.truncated'], "
        "SpanAttributes['harborlight.dropped_attributes'] "
        "FROM otel_traces WHERE ServiceName = {s:String} ORDER BY length(SpanName)",
        s=unique,
    )
    assert rows == [
        (256 * 1024, "huge", len("step 0"), 0, "", ""),
        (256 * 1024, "huge", 256 * 1024, 512, "name", str(100_000 - 512)),
    ]
    counted = httpx.get(f"{server.http_url}/api/ingest", params={"service": unique}).json()["since_start"]["sources"]
    # a cut resource: both spans (the counters since start hold every test's services: this one's only)
    assert [(s["accepted"], s["truncated"]) for s in counted if s["service"] == unique] == [(2, 2)]
