"""Server mode (`--clickhouse-url`): harborlight writes and reads through clickhouse-connect's HTTP client.

Against a real ClickHouse when CLICKHOUSE_URL is set (tests keep apart by unique service names), otherwise
against the chDB-backed stand-in for ClickHouse's HTTP interface (tests/support/clickhouse_standin.py), run
as a subprocess on its own data directory. The outage test always uses its own stand-in, since it stops it.
harborlight acknowledges once a request is in its write-ahead log: a test reading with its own client first
waits for the committer (server.caught_up()).
"""

import os
from concurrent.futures import ThreadPoolExecutor

import clickhouse_connect
import grpc
import httpx
import pytest
from opentelemetry.exporter.otlp.proto.grpc._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.trace import SpanKind, Status, StatusCode

from harborlight.commit.ingest_log import owned_requests, record_digests, stored_digests
from harborlight.settings import Settings
from tests.support.otlp import traces_request
from tests.support.servers import InProcessServer
from tests.support.standin_process import Standin


def reader(url: str):
    """A client of our own, apart from harborlight's, to read back what landed."""
    return clickhouse_connect.get_client(dsn=url, compress=False)


@pytest.fixture(scope="module")
def clickhouse_url(tmp_path_factory):
    if os.environ.get("CLICKHOUSE_URL"):
        yield os.environ["CLICKHOUSE_URL"]
        return
    standin = Standin(tmp_path_factory.mktemp("standin")).start()
    yield standin.url
    standin.stop()


@pytest.fixture(scope="module")
def server(clickhouse_url):
    """harborlight in server mode (it never opens chDB itself, so it does not meet the session's embedded store)."""
    srv = InProcessServer(Settings(clickhouse_url=clickhouse_url)).start()
    assert not srv.store.embedded
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def ch(clickhouse_url):
    client = reader(clickhouse_url)
    yield client
    client.close()


def rows(ch, query: str, **parameters) -> list[tuple]:
    return ch.query(query, parameters=parameters).result_rows


def test_schema_is_created_on_the_server(server, ch):
    tables = dict(rows(ch, "SELECT name, engine FROM system.tables WHERE database = currentDatabase()"))
    for name in (
        "otel_traces",
        "otel_traces_trace_id_ts",
        "otel_logs",
        "otel_metrics_gauge",
        "otel_metrics_sum",
        "otel_metrics_histogram",
    ):
        assert tables.get(name, "").endswith("MergeTree"), name
    assert tables["otel_traces_trace_id_ts_mv"] == "MaterializedView"
    columns = dict(
        rows(ch, "SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = 'otel_traces'")
    )
    assert columns["TraceId"] == "String" and columns["Events.Name"] == "Array(LowCardinality(String))"


def test_sdk_spans_land_with_the_exporters_values_and_are_served(server, ch, unique):
    provider = TracerProvider(resource=Resource.create({"service.name": unique, "harbor.job.name": f"job-{unique}"}))
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=server.grpc_endpoint, insecure=True)))
    tracer = provider.get_tracer("agent", "1.2.3")
    with (
        tracer.start_as_current_span("invoke_agent", kind=SpanKind.SERVER) as root,
        tracer.start_as_current_span("chat claude-sonnet-4", kind=SpanKind.CLIENT) as child,
    ):
        child.set_attribute("gen_ai.usage.input_tokens", 1200)
        child.add_event("exception", {"exception.type": "RateLimitError"})
        child.set_status(Status(StatusCode.ERROR, "429 Too Many Requests"))
    provider.shutdown()
    server.caught_up()  # acknowledged once in the write-ahead log: our own client reads once it is stored
    trace_id = format(root.get_span_context().trace_id, "032x")
    root_id = format(root.get_span_context().span_id, "016x")

    chat, top = rows(
        ch,
        "SELECT SpanName, SpanKind, StatusCode, StatusMessage, TraceId, SpanId, ParentSpanId, ScopeName, "
        "SpanAttributes, `Events.Name`, `Events.Attributes`, ResourceAttributes['harbor.job.name'] "
        "FROM otel_traces WHERE ServiceName = {s:String} ORDER BY SpanName",
        s=unique,
    )
    assert top[:7] == ("invoke_agent", "Server", "Unset", "", trace_id, root_id, "")
    assert chat[:4] == ("chat claude-sonnet-4", "Client", "Error", "429 Too Many Requests")
    assert chat[4] == trace_id and chat[6] == root_id and len(chat[5]) == 16 and chat[5] == chat[5].lower()
    assert chat[7:] == (
        "agent",
        {"gen_ai.usage.input_tokens": "1200"},
        ["exception"],
        [{"exception.type": "RateLimitError"}],
        f"job-{unique}",
    )
    # Grafana's trace lookup table is filled by its materialized view (a row per insert of the trace).
    assert rows(ch, "SELECT count() > 0 FROM otel_traces_trace_id_ts WHERE TraceId = {t:String}", t=trace_id) == [(1,)]

    page = httpx.get(f"{server.http_url}/api/spans", params={"service": unique}).json()
    assert {(s["name"], s["kind"], s["job"]) for s in page["items"]} == {
        ("invoke_agent", "session", f"job-{unique}"),
        ("chat claude-sonnet-4", "llm_request", f"job-{unique}"),
    }


def test_sdk_logs_and_metrics_land(server, ch, unique):
    logs = LoggerProvider(resource=Resource.create({"service.name": unique}))
    exporter = OTLPLogExporter(endpoint=server.grpc_endpoint, insecure=True)
    logs.add_log_record_processor(SimpleLogRecordProcessor(exporter))
    logs.get_logger("claude_code").emit(
        body="claude_code.api_request",
        event_name="claude_code.api_request",
        attributes={"model": "claude-sonnet-4", "input_tokens": 1500},
    )
    logs.shutdown()
    reader_ = PeriodicExportingMetricReader(
        OTLPMetricExporter(endpoint=server.grpc_endpoint, insecure=True), export_interval_millis=3_600_000
    )
    meters = MeterProvider(resource=Resource.create({"service.name": unique}), metric_readers=[reader_])
    meter = meters.get_meter("claude_code")
    meter.create_counter("claude_code.token.usage", unit="tokens").add(1500, {"type": "input"})
    meter.create_histogram("tool.duration", unit="ms").record(42.0)
    meter.create_gauge("queue.depth").set(7)
    meters.shutdown()
    server.caught_up()

    assert rows(
        ch, "SELECT EventName, Body, LogAttributes, ScopeName FROM otel_logs WHERE ServiceName = {s:String}", s=unique
    ) == [
        (
            "claude_code.api_request",
            "claude_code.api_request",
            {"model": "claude-sonnet-4", "input_tokens": "1500"},
            "claude_code",
        )
    ]
    assert rows(
        ch,
        "SELECT MetricName, Value, Attributes, IsMonotonic FROM otel_metrics_sum WHERE ServiceName = {s:String}",
        s=unique,
    ) == [("claude_code.token.usage", 1500.0, {"type": "input"}, True)]
    assert rows(
        ch, "SELECT MetricName, Count, Sum FROM otel_metrics_histogram WHERE ServiceName = {s:String}", s=unique
    ) == [("tool.duration", 1, 42.0)]
    assert rows(ch, "SELECT MetricName, Value FROM otel_metrics_gauge WHERE ServiceName = {s:String}", s=unique) == [
        ("queue.depth", 7.0)
    ]


def test_an_invalid_span_is_rejected_and_the_rest_stored(server, ch, unique):
    request = traces_request(unique, 3)
    request.resource_spans[0].scope_spans[0].spans[2].trace_id = b"\x01" * 15  # a trace id of the wrong length
    answer = httpx.post(
        f"{server.http_url}/v1/traces",
        content=request.SerializeToString(),
        headers={"content-type": "application/x-protobuf"},
    )
    assert answer.status_code == 200
    assert ExportTraceServiceResponse.FromString(answer.content).partial_success.rejected_spans == 1
    server.caught_up()
    assert rows(ch, "SELECT SpanName FROM otel_traces WHERE ServiceName = {s:String} ORDER BY SpanName", s=unique) == [
        ("step 0",),
        ("step 1",),
    ]


def test_a_store_outage_is_ridden_out_from_the_log_and_drained_after_it(tmp_path, unique):
    """The ClickHouse server goes away: requests are still acknowledged (from the write-ahead log) until the
    log is full, then refused retryably; /healthz says so; once it is back everything acknowledged lands, once."""
    standin = Standin(tmp_path / "standin").start()
    srv = InProcessServer(Settings(clickhouse_url=standin.url, wal_max_mib=1)).start()
    channel = grpc.insecure_channel(srv.grpc_endpoint)
    export = TraceServiceStub(channel).Export
    try:
        acknowledged = [traces_request(unique, 4)]
        export(acknowledged[0], timeout=10)
        srv.caught_up()  # stored before the outage
        standin.stop()
        while True:  # ~110 KB requests into a 1 MiB log
            request = traces_request(unique, 600)
            try:
                assert export(request, timeout=10).partial_success.rejected_spans == 0
            except grpc.RpcError as exc:
                assert exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, exc.details()
                assert "write-ahead log is full" in exc.details()
                refused = request
                break
            acknowledged.append(request)
        assert len(acknowledged) > 3, "the outage was not ridden out from the log"
        health = httpx.get(f"{srv.http_url}/healthz", timeout=10)
        assert health.status_code == 503 and health.json()["unstored_requests"] == len(acknowledged) - 1

        standin.start()  # same port, same data directory
        export(acknowledged[-1], timeout=10)  # an exporter's duplicate retry of an acknowledged request
        srv.caught_up()
        export(refused, timeout=10)  # the exporter's retry of the refused one, now that there is room
        srv.caught_up()
        spans = sorted(
            s.span_id.hex() for r in [*acknowledged, refused] for s in r.resource_spans[0].scope_spans[0].spans
        )
        with reader(standin.url) as ch:
            stored = rows(
                ch,
                "SELECT SpanId, count() FROM otel_traces WHERE ServiceName = {s:String} "
                "GROUP BY SpanId ORDER BY SpanId",
                s=unique,
            )
        assert stored == [(span_id, 1) for span_id in spans]
        assert httpx.get(f"{srv.http_url}/healthz", timeout=10).json()["status"] == "ok"
    finally:
        channel.close()
        srv.stop()
        if standin.process.poll() is None:
            standin.stop()


def test_concurrent_exports_and_queries_share_the_server_client(server, ch, unique):
    """The writer's commits and the API's queries run in different threads on one clickhouse-connect client."""
    requests = [traces_request(unique, 3) for _ in range(8)]

    def export(request) -> int:
        return httpx.post(
            f"{server.http_url}/v1/traces",
            content=request.SerializeToString(),
            headers={"content-type": "application/x-protobuf"},
            timeout=30,
        ).status_code

    def query(_) -> int:
        return httpx.get(f"{server.http_url}/api/spans", params={"service": unique}, timeout=30).status_code

    with ThreadPoolExecutor(16) as pool:
        statuses = list(pool.map(export, requests)) + list(pool.map(query, range(16)))
    assert statuses == [200] * 24
    server.caught_up()
    assert rows(ch, "SELECT count() FROM otel_traces WHERE ServiceName = {s:String}", s=unique) == [(24,)]


def test_a_commit_of_hundreds_of_requests_checks_and_claims_their_digests(server, unique):
    """A commit's digest look-ups bind hundreds of values: clickhouse-connect then sends the statement and its
    values as multipart/form-data (past 4 KiB of bound values), which the server reads as it reads the URL."""
    digests = [os.urandom(16) for _ in range(300)]
    assert stored_digests(server.store, digests) == set()
    assert owned_requests(server.store, digests, f"log-{unique}") == set(digests)
    assert owned_requests(server.store, digests, f"other-{unique}") == set()  # the first claim holds
    record_digests(server.store, [(d, "traces", 1) for d in digests])
    assert stored_digests(server.store, digests) == set(digests)
