"""INSERT ... SELECT statements that let ClickHouse decode OTLP export requests itself.

The writer hands the engine length-delimited ExportXServiceRequest messages (format Protobuf, one
request per row); these statements ARRAY JOIN down to spans / log records / data points and write the
OpenTelemetry Collector ClickHouse exporter's columns with its value conventions. Python never
touches a span on this path.

Planning an INSERT costs more than executing it for a few thousand rows, and the cost grows with the
number of attribute renderers in the statement: so each level renders all of its attribute lists
(span, events, links; resource and scope) with a single `attribute_maps` call.
"""

import re
from dataclasses import dataclass
from functools import cached_property
from importlib.resources import files
from importlib.resources.abc import Traversable

from harborlight.commit.any_value_sql import attribute_maps, scalar_value_text
from harborlight.sql_text import TENANT_ATTRIBUTE, literal


@dataclass(frozen=True)
class Decoding:
    """How the engine reads the requests (the Protobuf schema, the structures of its rows) and attribute
    values and log bodies (each as its raw bytes, rendered by harborlight/commit/any_value_sql.py)."""

    proto_path: Traversable

    def attribute_maps(self, lists: str) -> str:
        return attribute_maps(lists)

    @cached_property
    def proto_schema(self) -> str:
        return self.proto_path.read_text()

    @cached_property
    def traces_structure(self) -> str:
        return (
            f"resource_spans Array(Tuple(resource {self._resource}, "
            f"scope_spans Array(Tuple(scope {self._scope}, spans Array({self._span})))))"
        )

    @cached_property
    def logs_structure(self) -> str:
        log = (
            "Tuple(time_unix_nano UInt64, severity_number Int32, severity_text String, "
            f"body String, attributes {self._attrs}, flags UInt32, trace_id String, span_id String, "
            "observed_time_unix_nano UInt64, event_name String)"
        )
        return (
            f"resource_logs Array(Tuple(resource {self._resource}, "
            f"scope_logs Array(Tuple(scope {self._scope}, log_records Array({log}), schema_url String)), "
            "schema_url String))"
        )

    @cached_property
    def metrics_structure(self) -> str:
        exemplars = (
            "Array(Tuple(time_unix_nano UInt64, as_double Nullable(Float64), span_id String, trace_id String, "
            f"as_int Nullable(Int64), filtered_attributes {self._attrs}))"
        )
        number_points = (
            "Array(Tuple(start_time_unix_nano UInt64, time_unix_nano UInt64, as_double Nullable(Float64), "
            f"exemplars {exemplars}, as_int Nullable(Int64), attributes {self._attrs}, flags UInt32))"
        )
        histogram_points = (
            "Array(Tuple(start_time_unix_nano UInt64, time_unix_nano UInt64, count UInt64, sum Float64, "
            f"bucket_counts Array(UInt64), explicit_bounds Array(Float64), exemplars {exemplars}, "
            f"attributes {self._attrs}, flags UInt32, min Nullable(Float64), max Nullable(Float64)))"
        )
        buckets = "Tuple(offset Int32, bucket_counts Array(UInt64))"
        exponential_points = (
            f"Array(Tuple(attributes {self._attrs}, start_time_unix_nano UInt64, time_unix_nano UInt64, "
            f"count UInt64, sum Float64, scale Int32, zero_count UInt64, positive {buckets}, negative {buckets}, "
            f"flags UInt32, exemplars {exemplars}, min Nullable(Float64), max Nullable(Float64)))"
        )
        summary_points = (
            "Array(Tuple(start_time_unix_nano UInt64, time_unix_nano UInt64, count UInt64, sum Float64, "
            f"quantile_values Array(Tuple(quantile Float64, value Float64)), attributes {self._attrs}, "
            "flags UInt32))"
        )
        metric = (
            "Tuple(name String, description String, unit String, "
            f"gauge Tuple(data_points {number_points}), "
            f"sum Tuple(data_points {number_points}, aggregation_temporality Int32, is_monotonic Bool), "
            f"histogram Tuple(data_points {histogram_points}, aggregation_temporality Int32), "
            f"exponential_histogram Tuple(data_points {exponential_points}, aggregation_temporality Int32), "
            f"summary Tuple(data_points {summary_points}))"
        )
        return (
            f"resource_metrics Array(Tuple(resource {self._resource}, "
            f"scope_metrics Array(Tuple(scope {self._scope}, metrics Array({metric}), schema_url String)), "
            "schema_url String))"
        )

    @property
    def _attrs(self) -> str:
        return "Array(Tuple(key String, value String))"

    @property
    def _resource(self) -> str:
        return f"Tuple(attributes {self._attrs})"

    @property
    def _scope(self) -> str:
        return f"Tuple(name String, version String, attributes {self._attrs}, dropped_attributes_count UInt32)"

    @property
    def _span(self) -> str:
        return (
            "Tuple(trace_id String, span_id String, trace_state String, parent_span_id String, name String, "
            "kind Int32, start_time_unix_nano UInt64, end_time_unix_nano UInt64, "
            f"attributes {self._attrs}, "
            f"events Array(Tuple(time_unix_nano UInt64, name String, attributes {self._attrs})), "
            f"links Array(Tuple(trace_id String, span_id String, trace_state String, attributes {self._attrs})), "
            "status Tuple(message String, code Int32))"
        )


DECODING = Decoding(files("harborlight.commit").joinpath("otlp_decode.proto"))


_TENANT_NAME = re.compile(r"[A-Za-z0-9._-]{1,64}")


def _with_tenant(resource_map: str, tenant: str | None) -> str:
    """With tenants on, every row's resource carries the caller's tenant (overriding what was sent)."""
    if tenant is None:
        return resource_map
    if not _TENANT_NAME.fullmatch(tenant):
        raise ValueError(f"not a tenant name: {tenant!r}")
    return f"mapUpdate({resource_map}, map({literal(TENANT_ATTRIBUTE)}, {literal(tenant)}))"


def _nanos(expr: str) -> str:
    return f"fromUnixTimestamp64Nano(toInt64({expr}))"


def _hex(expr: str) -> str:
    return f"lower(hex({expr}))"


def _scoped(
    decoding: Decoding, source: str, tenant: str | None, resources: str, scopes: str, items: str, extra: str = ""
) -> str:
    """One row per scope block with its resource and scope columns, computed once, not per item."""
    return f"""
    SELECT
        {decoding.attribute_maps("[rs.resource.attributes, sc.scope.attributes]")} AS scoped_maps,
        {_with_tenant("scoped_maps[1]", tenant)} AS res_attrs,
        res_attrs['service.name'] AS service_name,
        sc.scope.name AS scope_name,
        sc.scope.version AS scope_version,
        scoped_maps[2] AS scope_attrs,
        sc.scope.dropped_attributes_count AS scope_dropped,
        sc.{items} AS items{extra}
    FROM {source}
    ARRAY JOIN {resources} AS rs
    ARRAY JOIN rs.{scopes} AS sc"""


SPAN_KINDS = "['Unspecified', 'Internal', 'Server', 'Client', 'Producer', 'Consumer']"
STATUS_CODES = "['Unset', 'Ok', 'Error']"


def traces_insert(source: str, tenant: str | None = None, decoding: Decoding = DECODING) -> str:
    """`source` is a table function yielding rows of `decoding.traces_structure` (file(...) or input(...))."""
    maps = decoding.attribute_maps(
        "arrayConcat([sp.attributes, rs.resource.attributes], arrayMap(e -> e.attributes, sp.events), "
        "arrayMap(l -> l.attributes, sp.links))"
    )
    return f"""
INSERT INTO otel_traces (
    Timestamp, TraceId, SpanId, ParentSpanId, TraceState, SpanName, SpanKind, ServiceName,
    ResourceAttributes, ScopeName, ScopeVersion, SpanAttributes, Duration, StatusCode, StatusMessage,
    `Events.Timestamp`, `Events.Name`, `Events.Attributes`,
    `Links.TraceId`, `Links.SpanId`, `Links.TraceState`, `Links.Attributes`)
SELECT
    {_nanos("sp.start_time_unix_nano")},
    {_hex("sp.trace_id")},
    {_hex("sp.span_id")},
    {_hex("sp.parent_span_id")},
    sp.trace_state,
    sp.name,
    {SPAN_KINDS}[least(greatest(sp.kind, 0), 5) + 1],
    ({_with_tenant(f"({maps} AS maps)[2]", tenant)} AS res_attrs)['service.name'],
    res_attrs,
    sc.scope.name,
    sc.scope.version,
    maps[1],
    sp.end_time_unix_nano - sp.start_time_unix_nano,
    {STATUS_CODES}[least(greatest(sp.status.code, 0), 2) + 1],
    sp.status.message,
    arrayMap(e -> {_nanos("e.time_unix_nano")}, sp.events),
    arrayMap(e -> e.name, sp.events),
    arraySlice(maps, 3, length(sp.events)),
    arrayMap(l -> {_hex("l.trace_id")}, sp.links),
    arrayMap(l -> {_hex("l.span_id")}, sp.links),
    arrayMap(l -> l.trace_state, sp.links),
    arraySlice(maps, 3 + length(sp.events), length(sp.links))
FROM {source}
ARRAY JOIN resource_spans AS rs
ARRAY JOIN rs.scope_spans AS sc
ARRAY JOIN sc.spans AS sp"""


def logs_insert(source: str, tenant: str | None = None, decoding: Decoding = DECODING) -> str:
    return f"""
INSERT INTO otel_logs (
    Timestamp, TraceId, SpanId, TraceFlags, SeverityText, SeverityNumber, ServiceName, Body,
    ResourceSchemaUrl, ResourceAttributes, ScopeSchemaUrl, ScopeName, ScopeVersion, ScopeAttributes,
    LogAttributes, EventName)
SELECT
    {_nanos("if(lr.time_unix_nano = 0, lr.observed_time_unix_nano, lr.time_unix_nano)")},
    {_hex("lr.trace_id")},
    {_hex("lr.span_id")},
    bitAnd(lr.flags, 255),
    lr.severity_text,
    lr.severity_number,
    service_name,
    {scalar_value_text("lr.body")},
    res_schema_url,
    res_attrs,
    scope_schema_url,
    scope_name,
    scope_version,
    scope_attrs,
    {decoding.attribute_maps("[lr.attributes]")}[1],
    lr.event_name
FROM ({
        _scoped(
            decoding,
            source,
            tenant,
            "resource_logs",
            "scope_logs",
            "log_records",
            extra=", rs.schema_url AS res_schema_url, sc.schema_url AS scope_schema_url",
        )
    })
ARRAY JOIN items AS lr"""


_METRIC_COMMON = """
    ResourceAttributes, ResourceSchemaUrl, ScopeName, ScopeVersion, ScopeAttributes, ScopeDroppedAttrCount,
    ScopeSchemaUrl, ServiceName, MetricName, MetricDescription, MetricUnit, Attributes, StartTimeUnix,
    TimeUnix"""
_EXEMPLAR_COLUMNS = """
    `Exemplars.FilteredAttributes`, `Exemplars.TimeUnix`, `Exemplars.Value`, `Exemplars.SpanId`,
    `Exemplars.TraceId`"""


def _metric_common_values(decoding: Decoding, exemplars: bool = True) -> str:
    point_maps = decoding.attribute_maps(
        "arrayConcat([dp.attributes], arrayMap(x -> x.filtered_attributes, dp.exemplars))"
        if exemplars
        else "[dp.attributes]"
    )
    return f"""
    res_attrs, res_schema_url, scope_name, scope_version, scope_attrs, scope_dropped, scope_schema_url,
    service_name, m.name, m.description, m.unit, ({point_maps} AS point_maps)[1],
    {_nanos("dp.start_time_unix_nano")}, {_nanos("dp.time_unix_nano")}"""


def _fixed_hex(expr: str, size: int) -> str:
    """An exemplar's id as the exporter writes it: the hex of its fixed-size id, all zeros when it has none."""
    return f"if({expr} = '', '{'0' * 2 * size}', {_hex(expr)})"


_EXEMPLAR_VALUES = f"""
    arraySlice(point_maps, 2, length(dp.exemplars)),
    arrayMap(x -> {_nanos("x.time_unix_nano")}, dp.exemplars),
    arrayMap(x -> ifNull(x.as_double, toFloat64(ifNull(x.as_int, 0))), dp.exemplars),
    arrayMap(x -> {_fixed_hex("x.span_id", 8)}, dp.exemplars),
    arrayMap(x -> {_fixed_hex("x.trace_id", 16)}, dp.exemplars)"""


def _metric_source(decoding: Decoding, source: str, tenant: str | None, points: str) -> str:
    scoped = _scoped(
        decoding,
        source,
        tenant,
        "resource_metrics",
        "scope_metrics",
        "metrics",
        extra=", rs.schema_url AS res_schema_url, sc.schema_url AS scope_schema_url",
    )
    return f"""FROM ({scoped})
ARRAY JOIN items AS m
ARRAY JOIN m.{points} AS dp"""


def gauge_insert(source: str, tenant: str | None = None, decoding: Decoding = DECODING) -> str:
    return f"""
INSERT INTO otel_metrics_gauge ({_METRIC_COMMON}, Value, Flags, {_EXEMPLAR_COLUMNS})
SELECT {_metric_common_values(decoding)},
    ifNull(dp.as_double, toFloat64(ifNull(dp.as_int, 0))), dp.flags, {_EXEMPLAR_VALUES}
{_metric_source(decoding, source, tenant, "gauge.data_points")}"""


def sum_insert(source: str, tenant: str | None = None, decoding: Decoding = DECODING) -> str:
    return f"""
INSERT INTO otel_metrics_sum ({_METRIC_COMMON}, Value, Flags, {_EXEMPLAR_COLUMNS},
    AggregationTemporality, IsMonotonic)
SELECT {_metric_common_values(decoding)},
    ifNull(dp.as_double, toFloat64(ifNull(dp.as_int, 0))), dp.flags, {_EXEMPLAR_VALUES},
    m.sum.aggregation_temporality, m.sum.is_monotonic
{_metric_source(decoding, source, tenant, "sum.data_points")}"""


def histogram_insert(source: str, tenant: str | None = None, decoding: Decoding = DECODING) -> str:
    return f"""
INSERT INTO otel_metrics_histogram ({_METRIC_COMMON}, Count, Sum, BucketCounts, ExplicitBounds,
    {_EXEMPLAR_COLUMNS}, Flags, Min, Max, AggregationTemporality)
SELECT {_metric_common_values(decoding)},
    dp.count, dp.sum, dp.bucket_counts, dp.explicit_bounds, {_EXEMPLAR_VALUES}, dp.flags,
    ifNull(dp.min, 0), ifNull(dp.max, 0), m.histogram.aggregation_temporality
{_metric_source(decoding, source, tenant, "histogram.data_points")}"""


def exponential_histogram_insert(source: str, tenant: str | None = None, decoding: Decoding = DECODING) -> str:
    return f"""
INSERT INTO otel_metrics_exponential_histogram ({_METRIC_COMMON}, Count, Sum, Scale, ZeroCount,
    PositiveOffset, PositiveBucketCounts, NegativeOffset, NegativeBucketCounts, {_EXEMPLAR_COLUMNS}, Flags, Min,
    Max, AggregationTemporality)
SELECT {_metric_common_values(decoding)},
    dp.count, dp.sum, dp.scale, dp.zero_count, dp.positive.offset, dp.positive.bucket_counts, dp.negative.offset,
    dp.negative.bucket_counts, {_EXEMPLAR_VALUES}, dp.flags, ifNull(dp.min, 0), ifNull(dp.max, 0),
    m.exponential_histogram.aggregation_temporality
{_metric_source(decoding, source, tenant, "exponential_histogram.data_points")}"""


def summary_insert(source: str, tenant: str | None = None, decoding: Decoding = DECODING) -> str:
    """A summary point has no exemplars: its attribute map is the only one of the point."""
    return f"""
INSERT INTO otel_metrics_summary ({_METRIC_COMMON}, Count, Sum, `ValueAtQuantiles.Quantile`,
    `ValueAtQuantiles.Value`, Flags)
SELECT {_metric_common_values(decoding, exemplars=False)},
    dp.count, dp.sum, arrayMap(q -> q.quantile, dp.quantile_values), arrayMap(q -> q.value, dp.quantile_values),
    dp.flags
{_metric_source(decoding, source, tenant, "summary.data_points")}"""
