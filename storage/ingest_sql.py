"""INSERT ... SELECT statements that let ClickHouse decode OTLP export requests itself.

The writer hands the engine length-delimited ExportXServiceRequest messages (format Protobuf, one
request per row); these statements ARRAY JOIN down to spans / log records / data points and write the
OpenTelemetry Collector ClickHouse exporter's columns with its value conventions. Python never
touches a span on this path.
"""

from importlib.resources import files

PROTO_SCHEMA = files("storage").joinpath("otlp_decode.proto").read_text()

# ClickHouse column types matching the messages of otlp_decode.proto. The engine reads AnyValue's
# scalar members straight into Nullable(String) (ints in decimal, doubles in shortest form, bools as
# true/false), so the member that was sent is the one that is not NULL.
_SCALARS = (
    "string_value Nullable(String), bool_value Nullable(String), int_value Nullable(String), "
    "double_value Nullable(String), bytes_value Nullable(String)"
)
_LEAF = f"Tuple({_SCALARS})"
_ANY = (
    f"Tuple({_SCALARS}, array_value Tuple(values Array({_LEAF})), "
    f"kvlist_value Tuple(values Array(Tuple(key String, value {_LEAF}))))"
)
_ATTRS = f"Array(Tuple(key String, value {_ANY}))"
_RESOURCE = f"Tuple(attributes {_ATTRS})"
_SCOPE = f"Tuple(name String, version String, attributes {_ATTRS}, dropped_attributes_count UInt32)"
_SPAN = (
    "Tuple(trace_id String, span_id String, trace_state String, parent_span_id String, name String, "
    "kind Int32, start_time_unix_nano UInt64, end_time_unix_nano UInt64, "
    f"attributes {_ATTRS}, "
    f"events Array(Tuple(time_unix_nano UInt64, name String, attributes {_ATTRS})), "
    f"links Array(Tuple(trace_id String, span_id String, trace_state String, attributes {_ATTRS})), "
    "status Tuple(message String, code Int32))"
)
_LOG = (
    "Tuple(time_unix_nano UInt64, severity_number Int32, severity_text String, "
    f"body {_ANY}, attributes {_ATTRS}, flags UInt32, trace_id String, span_id String, "
    "observed_time_unix_nano UInt64, event_name String)"
)
_EXEMPLARS = (
    "Array(Tuple(time_unix_nano UInt64, as_double Nullable(Float64), span_id String, trace_id String, "
    f"as_int Nullable(Int64), filtered_attributes {_ATTRS}))"
)
_NUMBER_POINTS = (
    "Array(Tuple(start_time_unix_nano UInt64, time_unix_nano UInt64, as_double Nullable(Float64), "
    f"exemplars {_EXEMPLARS}, as_int Nullable(Int64), attributes {_ATTRS}, flags UInt32))"
)
_HISTOGRAM_POINTS = (
    "Array(Tuple(start_time_unix_nano UInt64, time_unix_nano UInt64, count UInt64, sum Float64, "
    f"bucket_counts Array(UInt64), explicit_bounds Array(Float64), exemplars {_EXEMPLARS}, "
    f"attributes {_ATTRS}, flags UInt32, min Nullable(Float64), max Nullable(Float64)))"
)
_METRIC = (
    "Tuple(name String, description String, unit String, "
    f"gauge Tuple(data_points {_NUMBER_POINTS}), "
    f"sum Tuple(data_points {_NUMBER_POINTS}, aggregation_temporality Int32, is_monotonic Bool), "
    f"histogram Tuple(data_points {_HISTOGRAM_POINTS}, aggregation_temporality Int32))"
)

TRACES_STRUCTURE = (
    f"resource_spans Array(Tuple(resource {_RESOURCE}, "
    f"scope_spans Array(Tuple(scope {_SCOPE}, spans Array({_SPAN})))))"
)
LOGS_STRUCTURE = (
    f"resource_logs Array(Tuple(resource {_RESOURCE}, "
    f"scope_logs Array(Tuple(scope {_SCOPE}, log_records Array({_LOG}), schema_url String)), "
    "schema_url String))"
)
METRICS_STRUCTURE = (
    f"resource_metrics Array(Tuple(resource {_RESOURCE}, "
    f"scope_metrics Array(Tuple(scope {_SCOPE}, metrics Array({_METRIC}), schema_url String)), "
    "schema_url String))"
)


def _double(v: str) -> str:
    # pdata writes large doubles as ECMAScript does ("1e+21"); the engine writes "1e21".
    return f"replaceRegexpOne({v}.double_value, 'e([0-9])', 'e+\\\\1')"


def _leaf_json(v: str) -> str:
    return (
        f"coalesce(toJSONString({v}.string_value), {v}.int_value, {_double(v)}, {v}.bool_value, "
        f"toJSONString(base64Encode({v}.bytes_value)), 'null')"
    )


def any_value_string(v: str) -> str:
    """The exporter's AnyValue.AsString(): scalars as text, bytes as base64, arrays and maps as JSON."""
    array = f"concat('[', arrayStringConcat(arrayMap(x -> {_leaf_json('x')}, {v}.array_value.values), ','), ']')"
    kvlist = (
        f"concat('{{', arrayStringConcat(arrayMap(kv -> concat(toJSONString(kv.key), ':', {_leaf_json('kv.value')}), "
        f"{v}.kvlist_value.values), ','), '}}')"
    )
    return (
        f"coalesce({v}.string_value, {v}.int_value, {_double(v)}, {v}.bool_value, base64Encode({v}.bytes_value), "
        f"if(notEmpty({v}.array_value.values), {array}, if(notEmpty({v}.kvlist_value.values), {kvlist}, '')))"
    )


def attributes_map(attrs: str) -> str:
    return f"mapFromArrays({attrs}.key, arrayMap(v -> {any_value_string('v')}, {attrs}.value))"


def _nanos(expr: str) -> str:
    return f"fromUnixTimestamp64Nano(toInt64({expr}))"


def _hex(expr: str) -> str:
    return f"lower(hex({expr}))"


# Resource and scope columns are computed once per scope block, then copied onto each item by the
# outer ARRAY JOIN, instead of being rebuilt for every span.
def _scoped(source: str, resources: str, scopes: str, items: str, extra: str = "") -> str:
    return f"""
    SELECT
        {attributes_map('rs.resource.attributes')} AS res_attrs,
        res_attrs['service.name'] AS service_name,
        sc.scope.name AS scope_name,
        sc.scope.version AS scope_version,
        {attributes_map('sc.scope.attributes')} AS scope_attrs,
        sc.scope.dropped_attributes_count AS scope_dropped,
        sc.{items} AS items{extra}
    FROM {source}
    ARRAY JOIN {resources} AS rs
    ARRAY JOIN rs.{scopes} AS sc"""


SPAN_KINDS = "['Unspecified', 'Internal', 'Server', 'Client', 'Producer', 'Consumer']"
STATUS_CODES = "['Unset', 'Ok', 'Error']"


def traces_insert(source: str) -> str:
    """`source` is a table function yielding rows of TRACES_STRUCTURE (file(...) or input(...))."""
    return f"""
INSERT INTO otel_traces (
    Timestamp, TraceId, SpanId, ParentSpanId, TraceState, SpanName, SpanKind, ServiceName,
    ResourceAttributes, ScopeName, ScopeVersion, SpanAttributes, Duration, StatusCode, StatusMessage,
    `Events.Timestamp`, `Events.Name`, `Events.Attributes`,
    `Links.TraceId`, `Links.SpanId`, `Links.TraceState`, `Links.Attributes`)
SELECT
    {_nanos('sp.start_time_unix_nano')},
    {_hex('sp.trace_id')},
    {_hex('sp.span_id')},
    {_hex('sp.parent_span_id')},
    sp.trace_state,
    sp.name,
    {SPAN_KINDS}[least(greatest(sp.kind, 0), 5) + 1],
    service_name,
    res_attrs,
    scope_name,
    scope_version,
    {attributes_map('sp.attributes')},
    sp.end_time_unix_nano - sp.start_time_unix_nano,
    {STATUS_CODES}[least(greatest(sp.status.code, 0), 2) + 1],
    sp.status.message,
    arrayMap(e -> {_nanos('e.time_unix_nano')}, sp.events),
    arrayMap(e -> e.name, sp.events),
    arrayMap(e -> {attributes_map('e.attributes')}, sp.events),
    arrayMap(l -> {_hex('l.trace_id')}, sp.links),
    arrayMap(l -> {_hex('l.span_id')}, sp.links),
    arrayMap(l -> l.trace_state, sp.links),
    arrayMap(l -> {attributes_map('l.attributes')}, sp.links)
FROM ({_scoped(source, 'resource_spans', 'scope_spans', 'spans')})
ARRAY JOIN items AS sp"""


def logs_insert(source: str) -> str:
    return f"""
INSERT INTO otel_logs (
    Timestamp, TraceId, SpanId, TraceFlags, SeverityText, SeverityNumber, ServiceName, Body,
    ResourceSchemaUrl, ResourceAttributes, ScopeSchemaUrl, ScopeName, ScopeVersion, ScopeAttributes,
    LogAttributes, EventName)
SELECT
    {_nanos('if(lr.time_unix_nano = 0, lr.observed_time_unix_nano, lr.time_unix_nano)')},
    {_hex('lr.trace_id')},
    {_hex('lr.span_id')},
    bitAnd(lr.flags, 255),
    lr.severity_text,
    lr.severity_number,
    service_name,
    {any_value_string('lr.body')},
    res_schema_url,
    res_attrs,
    scope_schema_url,
    scope_name,
    scope_version,
    scope_attrs,
    {attributes_map('lr.attributes')},
    lr.event_name
FROM ({_scoped(source, 'resource_logs', 'scope_logs', 'log_records',
               extra=", rs.schema_url AS res_schema_url, sc.schema_url AS scope_schema_url")})
ARRAY JOIN items AS lr"""


_METRIC_COMMON = """
    ResourceAttributes, ResourceSchemaUrl, ScopeName, ScopeVersion, ScopeAttributes, ScopeDroppedAttrCount,
    ScopeSchemaUrl, ServiceName, MetricName, MetricDescription, MetricUnit, Attributes, StartTimeUnix,
    TimeUnix"""
_EXEMPLAR_COLUMNS = """
    `Exemplars.FilteredAttributes`, `Exemplars.TimeUnix`, `Exemplars.Value`, `Exemplars.SpanId`,
    `Exemplars.TraceId`"""


def _metric_common_values() -> str:
    return f"""
    res_attrs, res_schema_url, scope_name, scope_version, scope_attrs, scope_dropped, scope_schema_url,
    service_name, m.name, m.description, m.unit, {attributes_map('dp.attributes')},
    {_nanos('dp.start_time_unix_nano')}, {_nanos('dp.time_unix_nano')}"""


_EXEMPLAR_VALUES = f"""
    arrayMap(x -> {attributes_map('x.filtered_attributes')}, dp.exemplars),
    arrayMap(x -> {_nanos('x.time_unix_nano')}, dp.exemplars),
    arrayMap(x -> ifNull(x.as_double, toFloat64(ifNull(x.as_int, 0))), dp.exemplars),
    arrayMap(x -> {_hex('x.span_id')}, dp.exemplars),
    arrayMap(x -> {_hex('x.trace_id')}, dp.exemplars)"""


def _metric_source(source: str, points: str) -> str:
    scoped = _scoped(source, 'resource_metrics', 'scope_metrics', 'metrics',
                     extra=", rs.schema_url AS res_schema_url, sc.schema_url AS scope_schema_url")
    return f"""FROM ({scoped})
ARRAY JOIN items AS m
ARRAY JOIN m.{points} AS dp"""


def gauge_insert(source: str) -> str:
    return f"""
INSERT INTO otel_metrics_gauge ({_METRIC_COMMON}, Value, Flags, {_EXEMPLAR_COLUMNS})
SELECT {_metric_common_values()},
    ifNull(dp.as_double, toFloat64(ifNull(dp.as_int, 0))), dp.flags, {_EXEMPLAR_VALUES}
{_metric_source(source, 'gauge.data_points')}"""


def sum_insert(source: str) -> str:
    return f"""
INSERT INTO otel_metrics_sum ({_METRIC_COMMON}, Value, Flags, {_EXEMPLAR_COLUMNS},
    AggregationTemporality, IsMonotonic)
SELECT {_metric_common_values()},
    ifNull(dp.as_double, toFloat64(ifNull(dp.as_int, 0))), dp.flags, {_EXEMPLAR_VALUES},
    m.sum.aggregation_temporality, m.sum.is_monotonic
{_metric_source(source, 'sum.data_points')}"""


def histogram_insert(source: str) -> str:
    return f"""
INSERT INTO otel_metrics_histogram ({_METRIC_COMMON}, Count, Sum, BucketCounts, ExplicitBounds,
    {_EXEMPLAR_COLUMNS}, Flags, Min, Max, AggregationTemporality)
SELECT {_metric_common_values()},
    dp.count, dp.sum, dp.bucket_counts, dp.explicit_bounds, {_EXEMPLAR_VALUES}, dp.flags,
    ifNull(dp.min, 0), ifNull(dp.max, 0), m.histogram.aggregation_temporality
{_metric_source(source, 'histogram.data_points')}"""
