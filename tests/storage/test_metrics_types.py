"""Every OTLP metric type lands in its table of the Collector ClickHouse exporter's current schema (its v0.160
metrics form), column for column, with the values its Go code writes; a store of the form before keeps its rows.

The expected rows are computed from the OTLP request with the exporter's rules (exporter_rows below, after its
internal/metrics/*_metrics.go and metrics_model.go), never from harborlight's own writer."""

import base64
import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path

import clickhouse_connect
import httpx
import pytest
from google.protobuf import json_format
from opentelemetry.exporter.otlp.proto.common._internal.metrics_encoder import encode_metrics
from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import OTLPMetricExporter
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, ArrayValue, KeyValue
from opentelemetry.proto.metrics.v1 import metrics_pb2
from opentelemetry.sdk.metrics import Histogram, MeterProvider
from opentelemetry.sdk.metrics.export import MetricExporter, MetricExportResult, PeriodicExportingMetricReader
from opentelemetry.sdk.metrics.view import ExponentialBucketHistogramAggregation, View
from opentelemetry.sdk.resources import Resource

from harborlight.settings import Settings
from harborlight.store import SCHEMA_VERSION, ensure_schema, schema_ddl
from harborlight.store.schema import statement
from harborlight.store.schema_ddl import METRICS_FORM_VERSION, Cluster, cluster_table
from harborlight.store.schema_rebuild import keeper_path_statement
from tests.agent.otlp_build import Traces, kv
from tests.support.dies_at_insert import DiesAtInsert
from tests.support.old_metrics import downgrade_metrics
from tests.support.otlp import T0, attrs
from tests.support.servers import InProcessServer

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "exporter_metrics_tables.json").read_text())
TABLES = list(FIXTURE["tables"])


# --- the exporter's schema, as its templates state it --------------------------------------------------------


def _expected_columns(table: str) -> list[tuple[str, str, str]]:
    """(name, type, codec) of each stored column, as the engine reports a table made from the template: a
    Nested column is one Array column per field; the type name Boolean is Bool."""
    out = []
    for column in FIXTURE["common_head"] + FIXTURE["tables"][table]:
        name, kind, codec = FIXTURE["exemplars"] if column == "exemplars" else column
        if isinstance(kind, dict):
            out += [(f"{name}.{field}", f"Array({sub})", codec) for field, sub in kind.items()]
        else:
            out.append((name, "Bool" if kind == "Boolean" else kind, codec))
    return out


def _codec(engine_codec: str) -> str:
    """The engine names Delta's width, which the template leaves to the column's type."""
    return re.sub(r"Delta\(\d\)", "Delta", engine_codec.removeprefix("CODEC(").removesuffix(")"))


def _form(client, database: str, table: str) -> dict:
    columns = [
        (name, kind, _codec(codec))
        for name, kind, codec in client.query(
            "SELECT name, type, compression_codec FROM system.columns "
            "WHERE database = {d:String} AND table = {t:String} ORDER BY position",
            parameters={"d": database, "t": table},
        ).result_rows
    ]
    engine, partition, order, settings = client.query(
        "SELECT engine, partition_key, sorting_key, engine_full FROM system.tables WHERE database = {d:String} "
        "AND name = {t:String}",
        parameters={"d": database, "t": table},
    ).result_rows[0]
    indexes = [
        tuple(r)
        for r in client.query(
            "SELECT name, expr, type_full, granularity FROM system.data_skipping_indices WHERE database = {d:String} "
            "AND table = {t:String} ORDER BY name",
            parameters={"d": database, "t": table},
        ).result_rows
    ]
    shown = dict(re.findall(r"(\w+) = (\w+)", settings.split("SETTINGS", 1)[1]))
    return {
        "columns": columns,
        "engine": engine,
        "partition_by": partition,
        "order_by": order,
        "indexes": indexes,
        "settings": {k: shown.get(k) for k in FIXTURE["settings"]},
    }


def _partition_by(table: str) -> str:
    """The exporter's partition key, led by the row's tenant where the schema keeps tenants in parts of their own
    (the one change harborlight makes to the exporter's tables)."""
    tenant = getattr(schema_ddl, "TENANT_KEYS", {}).get(table)
    return f"({tenant}, {FIXTURE['partition_by']})" if tenant else FIXTURE["partition_by"]


def _exporter_form(table: str) -> dict:
    return {
        "columns": _expected_columns(table),
        "engine": FIXTURE["engine"],
        "partition_by": _partition_by(table),
        "order_by": FIXTURE["order_by"],
        "indexes": sorted(tuple(i) for i in FIXTURE["indexes"]),
        "settings": FIXTURE["settings"],
    }


@pytest.fixture
def fresh_database(server, store_dir, unique):
    """A client on the session's engine, in a database of its own."""
    admin = server.store.client
    admin.command(f"CREATE DATABASE metrics_{unique}")
    client = clickhouse_connect.get_client(
        interface="chdb", path=str(store_dir.resolve()), database=f"metrics_{unique}"
    )
    yield client, f"metrics_{unique}"
    admin.command(f"DROP DATABASE metrics_{unique}")


def test_every_metrics_table_is_column_for_column_the_exporters(fresh_database):
    client, database = fresh_database
    ensure_schema(client)
    for table in TABLES:
        assert _form(client, database, table) == _exporter_form(table), table


# --- the exporter's values, as its Go code writes them -------------------------------------------------------


def _text(value: AnyValue) -> str:
    """pcommon.Value.AsString() of the scalar values these tests send."""
    kind = value.WhichOneof("value")
    if kind is None:
        return ""
    if kind == "string_value":
        return value.string_value
    if kind == "int_value":
        return str(value.int_value)
    if kind == "bool_value":
        return "true" if value.bool_value else "false"
    if kind == "array_value" and all(v.WhichOneof("value") == "string_value" for v in value.array_value.values):
        return json.dumps([v.string_value for v in value.array_value.values], separators=(",", ":"))
    raise ValueError(f"no rule here for {kind}")


def _map(kvs) -> dict[str, str]:
    return {kv.key: _text(kv.value) for kv in kvs}


def _value(point) -> float:
    """getValue: the int or double of a number point or exemplar, 0 when it has neither."""
    kind = point.WhichOneof("value")
    return point.as_double if kind == "as_double" else float(point.as_int) if kind == "as_int" else 0.0


def _seconds(nanos: int) -> int:
    return nanos // 1_000_000_000  # a DateTime column holds the second of time.Time


def _exemplars(exemplars) -> list:
    """convertExemplars: ids are the hex of the fixed-size id (all zeros when absent)."""
    return [
        [_map(x.filtered_attributes) for x in exemplars],
        [_seconds(x.time_unix_nano) for x in exemplars],
        [_value(x) for x in exemplars],
        [(x.span_id or bytes(8)).hex() for x in exemplars],
        [(x.trace_id or bytes(16)).hex() for x in exemplars],
    ]


def _optional(point, name: str) -> float:
    return getattr(point, name) if point.HasField(name) else 0.0


def exporter_rows(request: ExportMetricsServiceRequest) -> dict[str, list[tuple]]:
    """The rows the exporter writes for `request`, per table, in the column order of SELECTS."""
    rows: dict[str, list[tuple]] = {t: [] for t in TABLES}
    for rm in request.resource_metrics:
        resource = _map(rm.resource.attributes)
        for sm in rm.scope_metrics:
            scope = sm.scope
            for metric in sm.metrics:
                kind = metric.WhichOneof("data")
                data = getattr(metric, kind)
                for p in data.data_points:
                    head = [
                        resource,
                        rm.schema_url,
                        scope.name,
                        scope.version,
                        _map(scope.attributes),
                        scope.dropped_attributes_count,
                        sm.schema_url,
                        resource.get("service.name", ""),
                        metric.name,
                        metric.description,
                        metric.unit,
                        _map(p.attributes),
                        _seconds(p.start_time_unix_nano),
                        _seconds(p.time_unix_nano),
                    ]
                    if kind == "gauge":
                        rows["otel_metrics_gauge"].append((*head, _value(p), p.flags, *_exemplars(p.exemplars)))
                    elif kind == "sum":
                        rows["otel_metrics_sum"].append(
                            (
                                *head,
                                _value(p),
                                p.flags,
                                *_exemplars(p.exemplars),
                                data.aggregation_temporality,
                                data.is_monotonic,
                            )
                        )
                    elif kind == "histogram":
                        rows["otel_metrics_histogram"].append(
                            (
                                *head,
                                p.count,
                                p.sum,
                                list(p.bucket_counts),
                                list(p.explicit_bounds),
                                *_exemplars(p.exemplars),
                                p.flags,
                                _optional(p, "min"),
                                _optional(p, "max"),
                                data.aggregation_temporality,
                            )
                        )
                    elif kind == "exponential_histogram":
                        rows["otel_metrics_exponential_histogram"].append(
                            (
                                *head,
                                p.count,
                                p.sum,
                                p.scale,
                                p.zero_count,
                                p.positive.offset,
                                list(p.positive.bucket_counts),
                                p.negative.offset,
                                list(p.negative.bucket_counts),
                                *_exemplars(p.exemplars),
                                p.flags,
                                _optional(p, "min"),
                                _optional(p, "max"),
                                data.aggregation_temporality,
                            )
                        )
                    else:
                        rows["otel_metrics_summary"].append(
                            (
                                *head,
                                p.count,
                                p.sum,
                                [q.quantile for q in p.quantile_values],
                                [q.value for q in p.quantile_values],
                                p.flags,
                            )
                        )
    return rows


_HEAD = (
    "ResourceAttributes, ResourceSchemaUrl, ScopeName, ScopeVersion, ScopeAttributes, ScopeDroppedAttrCount, "
    "ScopeSchemaUrl, ServiceName, MetricName, MetricDescription, MetricUnit, Attributes, "
    "toUnixTimestamp(StartTimeUnix), toUnixTimestamp(TimeUnix)"
)
_EXEMPLARS = (
    "`Exemplars.FilteredAttributes`, arrayMap(t -> toUnixTimestamp(t), `Exemplars.TimeUnix`), "
    "`Exemplars.Value`, `Exemplars.SpanId`, `Exemplars.TraceId`"
)
SELECTS = {
    "otel_metrics_gauge": f"{_HEAD}, Value, Flags, {_EXEMPLARS}",
    "otel_metrics_sum": f"{_HEAD}, Value, Flags, {_EXEMPLARS}, AggregationTemporality, IsMonotonic",
    "otel_metrics_histogram": f"{_HEAD}, Count, Sum, BucketCounts, ExplicitBounds, {_EXEMPLARS}, Flags, Min, Max, "
    "AggregationTemporality",
    "otel_metrics_exponential_histogram": (
        f"{_HEAD}, Count, Sum, Scale, ZeroCount, PositiveOffset, PositiveBucketCounts, NegativeOffset, "
        f"NegativeBucketCounts, {_EXEMPLARS}, Flags, Min, Max, AggregationTemporality"
    ),
    "otel_metrics_summary": f"{_HEAD}, Count, Sum, `ValueAtQuantiles.Quantile`, `ValueAtQuantiles.Value`, Flags",
}


def _normal(value):
    """Maps as sorted items (their order is not a value), so rows compare and sort alike."""
    if isinstance(value, dict):
        return sorted((k, _normal(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return [_normal(v) for v in value]
    return value


def _same_rows(stored: list[tuple], expected: list[tuple]) -> None:
    assert sorted(map(repr, map(_normal, stored))) == sorted(map(repr, map(_normal, expected)))


def stored_rows(read, service: str) -> dict[str, list[tuple]]:
    return {t: read(f"SELECT {SELECTS[t]} FROM {t} WHERE ServiceName = {{s:String}}", s=service) for t in TABLES}


def _exemplar(**fields) -> metrics_pb2.Exemplar:
    return metrics_pb2.Exemplar(filtered_attributes=attrs(**{"exemplar.key": "x"}), **fields)


def every_type_request(service: str) -> ExportMetricsServiceRequest:
    """One point or more of each type, with what the exporter's conventions decide: int and double values,
    sub-second times, exemplars with and without ids, absent min/max, negative buckets, quantiles, flags."""
    request = ExportMetricsServiceRequest()
    rm = request.resource_metrics.add(schema_url="https://opentelemetry.io/schemas/1.30.0")
    rm.resource.attributes.extend(attrs(service__name=service, harbor__job__name=f"job-{service}", host__cores=2))
    sm = rm.scope_metrics.add(schema_url="https://opentelemetry.io/schemas/1.29.0")
    sm.scope.name, sm.scope.version, sm.scope.dropped_attributes_count = "agent.meter", "1.2.3", 4
    sm.scope.attributes.extend(attrs(scope__kind="test"))
    start, t = T0 + 123_456_789, T0 + 60_999_999_999
    trace_id, span_id = os.urandom(16), os.urandom(8)

    gauge = sm.metrics.add(name="queue.depth", description="items waiting", unit="{item}").gauge
    gauge.data_points.add(
        start_time_unix_nano=start,
        time_unix_nano=t,
        as_int=7,
        attributes=attrs(queue="a"),
        exemplars=[_exemplar(time_unix_nano=t - 5, as_int=3, trace_id=trace_id, span_id=span_id)],
    )
    gauge.data_points.add(time_unix_nano=t + 1_000_000_000, as_double=2.5, flags=1, attributes=attrs(queue="b"))

    total = sm.metrics.add(name="gen_ai.client.token.usage", unit="{token}").sum
    total.aggregation_temporality, total.is_monotonic = 1, True
    total.data_points.add(
        start_time_unix_nano=start,
        time_unix_nano=t,
        as_int=1500,
        attributes=attrs(gen_ai__token__type="input", cached=False),
        exemplars=[_exemplar(time_unix_nano=t, as_double=1.25)],
    )  # no ids: zeros

    histogram = sm.metrics.add(name="tool.duration", unit="ms").histogram
    histogram.aggregation_temporality = 2
    histogram.data_points.add(
        start_time_unix_nano=start,
        time_unix_nano=t,
        count=3,
        sum=42.5,
        bucket_counts=[1, 2, 0],
        explicit_bounds=[10.0, 100.0],
        min=1.5,
        max=30.0,
        attributes=attrs(tool="bash"),
        exemplars=[_exemplar(time_unix_nano=t, as_double=30.0, trace_id=trace_id, span_id=span_id)],
    )
    histogram.data_points.add(
        start_time_unix_nano=start, time_unix_nano=t, count=0, bucket_counts=[0], attributes=attrs(tool="none")
    )  # no sum, min or max: 0

    exponential = sm.metrics.add(name="gen_ai.server.request.duration", unit="s").exponential_histogram
    exponential.aggregation_temporality = 1
    exponential.data_points.add(
        start_time_unix_nano=start,
        time_unix_nano=t,
        count=9,
        sum=-3.75,
        scale=-2,
        zero_count=2,
        positive=metrics_pb2.ExponentialHistogramDataPoint.Buckets(offset=-3, bucket_counts=[1, 0, 4]),
        negative=metrics_pb2.ExponentialHistogramDataPoint.Buckets(offset=5, bucket_counts=[2]),
        flags=1,
        min=-40.0,
        max=12.0,
        zero_threshold=0.001,
        attributes=attrs(model="m"),
        exemplars=[_exemplar(time_unix_nano=t - 1, as_double=12.0, trace_id=trace_id, span_id=span_id)],
    )
    exponential.data_points.add(
        start_time_unix_nano=start, time_unix_nano=t, count=0, scale=20, attributes=attrs(model="empty")
    )

    summary = sm.metrics.add(name="rpc.latency", description="from a Prometheus summary", unit="s").summary
    summary.data_points.add(
        start_time_unix_nano=start,
        time_unix_nano=t,
        count=100,
        sum=12.5,
        flags=1,
        attributes=attrs(route="/v1")
        + [
            KeyValue(
                key="tags",
                value=AnyValue(array_value=ArrayValue(values=[AnyValue(string_value="a"), AnyValue(string_value="b")])),
            )
        ],
        quantile_values=[
            metrics_pb2.SummaryDataPoint.ValueAtQuantile(quantile=q, value=v)
            for q, v in ((0.0, 0.01), (0.5, 0.1), (0.99, 0.9), (1.0, 1.5))
        ],
    )
    summary.data_points.add(time_unix_nano=t, attributes=attrs(route="/none"))  # no quantiles
    return request


def _post(server, request: ExportMetricsServiceRequest) -> dict:
    answer = httpx.post(
        f"{server.http_url}/v1/metrics",
        content=request.SerializeToString(),
        headers={"content-type": "application/x-protobuf"},
        timeout=60,
    )
    assert answer.status_code == 200, answer.text
    return answer


def test_every_metric_type_is_stored_with_the_exporters_values(server, unique):
    request = every_type_request(unique)
    answer = _post(server, request)
    assert answer.content == b""  # no partial_success: nothing refused
    expected = exporter_rows(request)
    assert {t: len(rows) for t, rows in expected.items()} == dict.fromkeys(TABLES, 2) | {"otel_metrics_sum": 1}
    stored = stored_rows(server.sql, unique)
    for table in TABLES:
        _same_rows(stored[table], expected[table])


def _otlp_json(value):
    """Protobuf's JSON mapping as OTLP/JSON has it: trace and span ids in hex, not base64."""
    if isinstance(value, dict):
        return {k: base64.b64decode(v).hex() if k in ("traceId", "spanId") else _otlp_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_otlp_json(v) for v in value]
    return value


def test_every_metric_type_sent_as_otlp_json_is_stored_alike(server, unique):
    """OTLP/JSON (exponentialHistogram, quantileValues, 64-bit integers as strings) lands as the protobuf does."""
    request = every_type_request(unique)
    document = _otlp_json(json_format.MessageToDict(request))
    answer = httpx.post(
        f"{server.http_url}/v1/metrics",
        content=json.dumps(document),
        headers={"content-type": "application/json"},
        timeout=60,
    )
    assert answer.status_code == 200, answer.text
    assert answer.json() == {}
    expected, stored = exporter_rows(request), stored_rows(server.sql, unique)
    for table in TABLES:
        _same_rows(stored[table], expected[table])


def test_a_point_past_the_last_second_its_table_can_hold_is_refused_by_name(server, unique):
    """The tables hold a metric's times to the second as DateTime, whose last is 2106-02-07T06:28:15Z: a later
    point (or exemplar) would be stored as some other time, so it is refused in partial_success, the rest stored."""
    late = 2**32 * 1_000_000_000  # the first nanosecond past it
    request = ExportMetricsServiceRequest()
    rm = request.resource_metrics.add()
    rm.resource.attributes.extend(attrs(service__name=unique))
    points = rm.scope_metrics.add().metrics.add(name="late").gauge.data_points
    points.add(time_unix_nano=T0, as_int=1)
    points.add(time_unix_nano=late, as_int=2)
    points.add(time_unix_nano=T0, as_int=3, exemplars=[metrics_pb2.Exemplar(time_unix_nano=late, as_int=3)])
    points.add(time_unix_nano=late - 1, as_int=4)  # its last second
    answer = ExportMetricsServiceResponse.FromString(_post(server, request).content)
    assert answer.partial_success.rejected_data_points == 2
    assert "is beyond 2106-02-07" in answer.partial_success.error_message
    assert server.sql(
        "SELECT Value, toUnixTimestamp(TimeUnix) FROM otel_metrics_gauge WHERE ServiceName = {s:String} ORDER BY Value",
        s=unique,
    ) == [(1.0, T0 // 10**9), (4.0, 2**32 - 1)]


def test_the_trace_api_totals_a_counter_sent_as_an_exponential_histogram(server, unique):
    """Codex's token counter is a histogram; an SDK aggregating histograms exponentially sends it to
    otel_metrics_exponential_histogram, and the trial's trace totals read it there as from the explicit table."""
    job, trial = f"job-{unique}", f"{unique}-exp"
    resource = {"service.name": unique, "harbor.job.name": job, "harbor.trial.name": trial}
    harness = Traces(resource)
    harness.span("harbor.trial", start_ms=0, dur_ms=1_000)
    harness.send(server)
    request = ExportMetricsServiceRequest()
    rm = request.resource_metrics.add()
    rm.resource.attributes.extend(kv(resource))
    usage = rm.scope_metrics.add().metrics.add(name="codex.turn.token_usage", unit="token").exponential_histogram
    usage.aggregation_temporality = 1
    for token_type, total in (("input", 1200.0), ("output", 300.0)):
        usage.data_points.add(
            start_time_unix_nano=T0,
            time_unix_nano=T0 + 1,
            count=2,
            sum=total,
            attributes=kv({"model": "gpt-5.5", "token_type": token_type}),
        )
    _post(server, request)
    server.caught_up()
    answer = httpx.get(f"{server.http_url}/api/trials/{trial}/trace", params={"job": job}, timeout=120)
    assert answer.status_code == 200, answer.text
    counters = answer.json()["totals"]["value"]["counters"]
    assert {(c["metric"], c["model"], c["type"]): c["value"] for c in counters} == {
        ("codex.turn.token_usage", "gpt-5.5", "input"): 1200.0,
        ("codex.turn.token_usage", "gpt-5.5", "output"): 300.0,
    }


class _Recording(MetricExporter):
    """The real OTLP exporter, keeping each request it sends (encoded as the exporter encodes it)."""

    def __init__(self, exporter: OTLPMetricExporter) -> None:
        super().__init__(
            preferred_temporality=exporter._preferred_temporality, preferred_aggregation=exporter._preferred_aggregation
        )
        self._exporter, self.sent = exporter, []

    def export(self, metrics_data, timeout_millis: float = 10_000, **kwargs) -> MetricExportResult:
        self.sent.append(encode_metrics(metrics_data))
        return self._exporter.export(metrics_data, timeout_millis=timeout_millis)

    def force_flush(self, timeout_millis: float = 10_000) -> bool:
        return self._exporter.force_flush(timeout_millis)

    def shutdown(self, timeout_millis: float = 30_000, **kwargs) -> None:
        self._exporter.shutdown(timeout_millis=timeout_millis)


def test_sdk_exponential_histogram_points_are_stored_and_read_back(server, unique):
    """The OpenTelemetry SDK's own exponential histogram (a View with ExponentialBucketHistogramAggregation),
    exported over OTLP/gRPC: every point in otel_metrics_exponential_histogram with the exporter's values."""
    exporter = _Recording(OTLPMetricExporter(endpoint=server.grpc_endpoint, insecure=True))
    reader = PeriodicExportingMetricReader(exporter, export_interval_millis=3_600_000)
    provider = MeterProvider(
        resource=Resource.create({"service.name": unique, "harbor.trial.name": f"{unique}-1"}),
        metric_readers=[reader],
        views=[View(instrument_type=Histogram, aggregation=ExponentialBucketHistogramAggregation(max_size=20))],
    )
    histogram = provider.get_meter("agent.tools", "0.9").create_histogram("tool.duration", unit="ms")
    for value in (0.0, 0.5, 3.0, 3.5, 120.0, 4_000.0):
        histogram.record(value, {"tool": "bash"})
    histogram.record(2.0, {"tool": "edit"})  # (the SDK's histograms take no negative value: the request above has)
    provider.shutdown()

    points = [
        p
        for r in exporter.sent
        for rm in r.resource_metrics
        for sm in rm.scope_metrics
        for m in sm.metrics
        for p in m.exponential_histogram.data_points
    ]
    assert len(points) == 2 and sum(p.count for p in points) == 7  # what the SDK sent
    expected = {t: [] for t in TABLES}
    for sent in exporter.sent:
        for table, rows in exporter_rows(sent).items():
            expected[table] += rows
    stored = stored_rows(server.sql, unique)
    assert len(stored["otel_metrics_exponential_histogram"]) == 2
    for table in TABLES:
        _same_rows(stored[table], expected[table])
    bash = server.sql(
        "SELECT Count, ZeroCount, Min, Max, Scale, arraySum(PositiveBucketCounts) "
        "FROM otel_metrics_exponential_histogram WHERE ServiceName = {s:String} "
        "AND Attributes['tool'] = 'bash'",
        s=unique,
    )
    assert bash[0][:4] == (6, 1, 0.0, 4000.0) and bash[0][5] == 5 and bash[0][4] <= 20


# --- a store of the form before ------------------------------------------------------------------------------

_WHEN = datetime(2025, 12, 1, 0, 1, 0, 999_999, tzinfo=UTC)
_DAY_AFTER = datetime(2025, 12, 2, 0, 1, 0, 999_999, tzinfo=UTC)
_SUM_COLUMNS = [
    "ResourceAttributes",
    "ServiceName",
    "MetricName",
    "Attributes",
    "StartTimeUnix",
    "TimeUnix",
    "Value",
    "AggregationTemporality",
    "IsMonotonic",
]


def _old_rows(client, service: str) -> None:
    """Rows the form before held, written as it took them (nanosecond times, exemplars), over two days (two
    partitions of the sum table)."""
    head = ["ResourceAttributes", "ServiceName", "MetricName", "Attributes", "StartTimeUnix", "TimeUnix"]
    exemplar = [
        "Exemplars.FilteredAttributes",
        "Exemplars.TimeUnix",
        "Exemplars.Value",
        "Exemplars.SpanId",
        "Exemplars.TraceId",
    ]
    common = [{"service.name": service}, service, "m", {"k": "v"}, _WHEN, _WHEN]
    ex = [[{"e": "1"}], [_WHEN], [2.0], ["00000000000000aa"], ["000000000000000000000000000000bb"]]
    client.insert("otel_metrics_gauge", [common + [7.0, 1] + ex], column_names=head + ["Value", "Flags"] + exemplar)
    client.insert(
        "otel_metrics_sum",
        [common + [1500.0] + ex + [1, True], common[:5] + [_DAY_AFTER, 2000.0] + ex + [1, True]],
        column_names=head + ["Value"] + exemplar + ["AggregationTemporality", "IsMonotonic"],
    )
    client.insert(
        "otel_metrics_histogram",
        [common + [3, 42.5, [1, 2], [10.0], 1.5, 30.0, 2]] * 3,
        column_names=head + ["Count", "Sum", "BucketCounts", "ExplicitBounds", "Min", "Max", "AggregationTemporality"],
    )


_KEPT = {
    "otel_metrics_gauge": "SELECT MetricName, Attributes, toUnixTimestamp(TimeUnix), Value, Flags, "
    "`Exemplars.SpanId`, arrayMap(t -> toUnixTimestamp(t), `Exemplars.TimeUnix`) FROM {t}",
    "otel_metrics_sum": "SELECT MetricName, toUnixTimestamp(StartTimeUnix), toUnixTimestamp(TimeUnix), Value, "
    "IsMonotonic, `Exemplars.TraceId` FROM {t} ORDER BY TimeUnix, Value",
    "otel_metrics_histogram": "SELECT MetricName, Count, Sum, BucketCounts, ExplicitBounds, Min, Max FROM {t}",
}
_SECOND = 1_764_547_260  # 2025-12-01T00:01:00Z: the old rows' time, to the second
KEPT = {
    "otel_metrics_gauge": [("m", {"k": "v"}, _SECOND, 7.0, 1, ["00000000000000aa"], [_SECOND])],
    "otel_metrics_sum": [
        ("m", _SECOND, _SECOND, 1500.0, True, ["000000000000000000000000000000bb"]),
        ("m", _SECOND, _SECOND + 86_400, 2000.0, True, ["000000000000000000000000000000bb"]),
    ],
    "otel_metrics_histogram": [("m", 3, 42.5, [1, 2], [10.0], 1.5, 30.0)] * 3,
}


def _kept(client) -> dict[str, list[tuple]]:
    return {t: client.query(q.format(t=t)).result_rows for t, q in _KEPT.items()}


def test_a_store_of_the_form_before_gets_every_table_in_the_exporters_form_with_its_rows(fresh_database, unique):
    client, database = fresh_database
    ensure_schema(client, retention_days=3650)
    downgrade_metrics(client)
    assert _form(client, database, "otel_metrics_sum")["order_by"] != FIXTURE["order_by"]
    _old_rows(client, unique)

    assert ensure_schema(client, retention_days=3650) == SCHEMA_VERSION
    for table in TABLES:
        assert _form(client, database, table) == _exporter_form(table), table
    assert _kept(client) == KEPT
    engines = dict(
        client.query(
            "SELECT name, engine_full FROM system.tables WHERE database = {d:String}", parameters={"d": database}
        ).result_rows
    )
    for table in TABLES:  # the exporter's TTL, and the window by which a retried commit skips what it wrote
        assert "TTL toDateTime(TimeUnix) + toIntervalDay(3650)" in engines[table], table
        assert "non_replicated_deduplication_window = 1000" in engines[table], table
    assert not [name for name in engines if f"_v{METRICS_FORM_VERSION}" in name]  # no table of the steps left
    assert client.query("SELECT max(Version) FROM harborlight_schema_migrations").result_rows == [(SCHEMA_VERSION,)]
    # Started again: nothing is made again.
    uuids = "SELECT name, uuid FROM system.tables WHERE database = {d:String} AND name LIKE 'otel_metrics_%'"
    before = client.query(uuids, parameters={"d": database}).result_rows
    ensure_schema(client, retention_days=3650)
    assert client.query(uuids, parameters={"d": database}).result_rows == before


_V = METRICS_FORM_VERSION


@pytest.mark.parametrize(
    "statement, after",
    [
        ("EXCHANGE TABLES otel_metrics_sum", False),
        ("EXCHANGE TABLES otel_metrics_sum", True),
        (f"INSERT INTO otel_metrics_sum_v{_V}_rows", False),
        (f"INSERT INTO otel_metrics_sum_v{_V}_rows", True),
        (f"DROP TABLE otel_metrics_sum_v{_V} SYNC", True),
        (f"ALTER TABLE otel_metrics_sum_v{_V}_rows MOVE PARTITION", True),  # the first of its two partitions moved
    ],
)
def test_a_start_that_dies_while_making_a_table_again_is_completed_by_the_next(
    fresh_database, unique, statement, after
):
    """Killed at any step of making the sum table again, with a writer going on writing in between: the next start
    brings every table to the exporter's form, each row written before or in between kept once."""
    client, database = fresh_database
    ensure_schema(client)
    downgrade_metrics(client)
    _old_rows(client, unique)
    with pytest.raises(KeyboardInterrupt):
        ensure_schema(DiesAtInsert(client, statement, after=after))
    # Another receiver's point, into whichever form the table has now.
    client.insert("otel_metrics_sum", [[{}, unique, "m", {}, _WHEN, _WHEN, 1.0, 1, True]], column_names=_SUM_COLUMNS)
    ensure_schema(client)
    for table in TABLES:
        assert _form(client, database, table) == _exporter_form(table), table
    kept = _kept(client)
    assert kept["otel_metrics_sum"] == [("m", _SECOND, _SECOND, 1.0, True, [])] + KEPT["otel_metrics_sum"]
    assert kept | {"otel_metrics_sum": KEPT["otel_metrics_sum"]} == KEPT
    leftovers = "SELECT name FROM system.tables WHERE database = {d:String} AND name LIKE 'otel_metrics_%_v%'"
    assert client.query(leftovers, parameters={"d": database}).result_rows == []


def test_a_replicated_tables_new_form_is_made_under_the_keeper_path_of_its_name(server):
    """On a replicated cluster the table finally exchanged in is made under the path its name gives (the one a
    replica made later by `apply` takes), not the path of the name it is made under; the engine reads it."""
    cluster = Cluster("hl", replicated=True)
    local = cluster_table(
        f"otel_metrics_sum_v{_V}_final", statement("otel_metrics_sum"), cluster, like="otel_metrics_sum"
    )[0].sql
    sql = keeper_path_statement(local, "otel_metrics_sum_local")
    formatted = server.store.client.query("SELECT formatQuery({q:String})", parameters={"q": sql}).result_rows[0][0]
    assert formatted.startswith(f"CREATE TABLE IF NOT EXISTS otel_metrics_sum_v{_V}_final_local ON CLUSTER hl")
    assert (
        "ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/otel_metrics_sum_local', '{replica}')" in formatted
    )


# --- Grafana's reads --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def with_tenants(store_dir, tmp_path_factory):
    """A harborlight with two tenants and the ClickHouse HTTP interface Grafana reads."""
    tokens = tmp_path_factory.mktemp("metrics-auth") / "tokens"
    tokens.write_text("m-acme acme\nm-globex globex\n")
    srv = InProcessServer(
        Settings(data_dir=store_dir, tokens_file=tokens, auth_token="m-operator", clickhouse_http_port=0)
    ).start()
    yield srv
    srv.stop()


def test_grafanas_interface_reads_each_tenants_points_of_the_new_types(with_tenants, unique):
    """Through the ClickHouse HTTP interface Grafana's data source uses: a tenant's statement over the exponential
    histogram and summary tables sees its own points only (the tenant filter on their ResourceAttributes)."""
    for token in ("m-acme", "m-globex"):
        answer = httpx.post(
            f"{with_tenants.http_url}/v1/metrics",
            content=every_type_request(unique).SerializeToString(),
            headers={"content-type": "application/x-protobuf", "authorization": f"Bearer {token}"},
        )
        assert answer.status_code == 200, answer.text
    with_tenants.caught_up()
    port = with_tenants.run.clickhouse_http_port

    def read(token: str, table: str) -> str:
        sql = (
            f"SELECT ResourceAttributes['harborlight.tenant'], count(), sum(Count) FROM {table} "
            f"WHERE ServiceName = '{unique}' GROUP BY 1 ORDER BY 1 FORMAT TSV"
        )
        answer = httpx.post(f"http://127.0.0.1:{port}/", content=sql.encode(), auth=("default", token), timeout=60)
        assert answer.status_code == 200, answer.text
        return answer.text

    assert read("m-acme", "otel_metrics_exponential_histogram") == "acme\t2\t9\n"
    assert read("m-globex", "otel_metrics_summary") == "globex\t2\t100\n"
    assert read("m-operator", "otel_metrics_summary") == "acme\t2\t100\nglobex\t2\t100\n"
