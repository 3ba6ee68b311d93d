"""Every value a producer sends, at any depth, is stored as the Collector's ClickHouse exporter stores it.

The expected text comes from tests/support/reference_decoder.py (pdata's AsString: JSON of arrays and maps at
any depth, keys sorted, Go's escapes and float forms), computed from the request that was sent.
"""

import os

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, ArrayValue, KeyValue, KeyValueList

from tests.support.otlp import T0
from tests.support.reference_decoder import as_string

_scalars = st.one_of(
    st.text(max_size=12).map(lambda s: AnyValue(string_value=s)),
    st.integers(-(2**63), 2**63 - 1).map(lambda i: AnyValue(int_value=i)),
    st.floats().map(lambda f: AnyValue(double_value=f)),
    st.booleans().map(lambda b: AnyValue(bool_value=b)),
    st.binary(max_size=6).map(lambda b: AnyValue(bytes_value=b)),
    st.just(AnyValue()),
)


def _containers(children):
    arrays = st.lists(children, max_size=4).map(lambda vs: AnyValue(array_value=ArrayValue(values=vs)))
    maps = st.lists(st.tuples(st.text(max_size=6), children), max_size=4).map(
        lambda kvs: AnyValue(kvlist_value=KeyValueList(values=[KeyValue(key=k, value=v) for k, v in kvs]))
    )
    return st.one_of(arrays, maps)


def _depth(value: AnyValue) -> int:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return 1 + max((_depth(v) for v in value.array_value.values), default=0)
    if kind == "kvlist_value":
        return 1 + max((_depth(kv.value) for kv in value.kvlist_value.values), default=0)
    return 0


# trees of arrays and maps up to depth 8, with scalars beside them
_trees = st.recursive(_scalars, _containers, max_leaves=24).filter(lambda v: _depth(v) <= 8)
_attribute_sets = st.lists(_trees, min_size=1, max_size=4).map(
    lambda vs: [KeyValue(key=f"k{i}", value=v) for i, v in enumerate(vs)]
)

_SETTINGS = settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)


def _expected(kvs) -> dict[str, str]:
    return {kv.key: as_string(kv.value) for kv in kvs}


def _post(server, path: str, request) -> None:
    answer = httpx.post(
        f"{server.http_url}/v1/{path}",
        content=request.SerializeToString(),
        headers={"content-type": "application/x-protobuf"},
        timeout=120,
    )
    assert answer.status_code == 200, answer.text
    assert not answer.content or b"rejected" not in answer.content


@_SETTINGS
@given(resource=_attribute_sets, span=_attribute_sets, event=_attribute_sets, link=_attribute_sets)
def test_span_values_at_any_depth_are_stored_as_the_exporter_writes_them(server, resource, span, event, link):
    service = os.urandom(6).hex()
    request = ExportTraceServiceRequest()
    rs = request.resource_spans.add()
    rs.resource.attributes.add(key="service.name", value=AnyValue(string_value=service))
    rs.resource.attributes.extend(resource)
    ss = rs.scope_spans.add()
    ss.scope.name = "tests"
    s = ss.spans.add(
        trace_id=os.urandom(16),
        span_id=os.urandom(8),
        name="call",
        kind=1,
        start_time_unix_nano=T0,
        end_time_unix_nano=T0 + 10,
    )
    s.attributes.extend(span)
    s.events.add(time_unix_nano=T0 + 1, name="e").attributes.extend(event)
    s.links.add(trace_id=os.urandom(16), span_id=os.urandom(8)).attributes.extend(link)
    _post(server, "traces", request)
    [(got_resource, got_span, got_events, got_links)] = server.sql(
        "SELECT ResourceAttributes, SpanAttributes, `Events.Attributes`, `Links.Attributes` "
        "FROM otel_traces WHERE ServiceName = {s:String}",
        s=service,
    )
    assert got_resource == _expected(rs.resource.attributes)
    assert got_span == _expected(span)
    assert got_events == [_expected(event)]
    assert got_links == [_expected(link)]


@_SETTINGS
@given(body=_trees, record=_attribute_sets, scope=_attribute_sets, resource=_attribute_sets)
def test_log_bodies_and_attributes_at_any_depth_are_stored_as_the_exporter_writes_them(
    server, body, record, scope, resource
):
    service = os.urandom(6).hex()
    request = ExportLogsServiceRequest()
    rl = request.resource_logs.add()
    rl.resource.attributes.add(key="service.name", value=AnyValue(string_value=service))
    rl.resource.attributes.extend(resource)
    sl = rl.scope_logs.add()
    sl.scope.attributes.extend(scope)
    r = sl.log_records.add(time_unix_nano=T0, event_name="gen_ai.choice")
    r.body.CopyFrom(body)
    r.attributes.extend(record)
    _post(server, "logs", request)
    [(got_body, got_attributes, got_scope, got_resource)] = server.sql(
        "SELECT Body, LogAttributes, ScopeAttributes, ResourceAttributes FROM otel_logs WHERE ServiceName = {s:String}",
        s=service,
    )
    assert got_body == as_string(body)
    assert got_attributes == _expected(record)
    assert got_scope == _expected(scope)
    assert got_resource == _expected(rl.resource.attributes)


@_SETTINGS
@given(point=_attribute_sets, exemplar=_attribute_sets)
def test_metric_attributes_at_any_depth_are_stored_as_the_exporter_writes_them(server, point, exemplar):
    service = os.urandom(6).hex()
    request = ExportMetricsServiceRequest()
    rm = request.resource_metrics.add()
    rm.resource.attributes.add(key="service.name", value=AnyValue(string_value=service))
    metric = rm.scope_metrics.add().metrics.add(name="tokens")
    p = metric.gauge.data_points.add(time_unix_nano=T0, as_int=3)
    p.attributes.extend(point)
    p.exemplars.add(time_unix_nano=T0, as_int=1).filtered_attributes.extend(exemplar)
    _post(server, "metrics", request)
    [(got_point, got_exemplars)] = server.sql(
        "SELECT Attributes, `Exemplars.FilteredAttributes` FROM otel_metrics_gauge WHERE ServiceName = {s:String}",
        s=service,
    )
    assert got_point == _expected(point)
    assert got_exemplars == [_expected(exemplar)]
