"""A streamed job, and the dashboards' panels run against it the way Grafana runs them: variables and the
data source's macros expanded for a fixed time range, then the SQL sent to harborlight's read-only
ClickHouse HTTP interface (what the provisioned data source talks to) over the shared session store, through
a client that sends and decodes as the data source's driver, clickhouse-go v2.47, does
(tests/support/clickhouse_go.py)."""

import json
import os
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from harborlight.settings import Settings
from tests.grafana.macros import TimeRange, Value, expand
from tests.query.job_stream import StreamedJob, stream_job
from tests.support.clickhouse_go import ClickHouseGo, open_grafana_connection
from tests.support.clickhouse_go_tcp import ClickHouseGoNative, open_grafana_native
from tests.support.otlp import logs_request, traces_request
from tests.support.servers import InProcessServer

GRAFANA = Path(__file__).resolve().parents[2] / "deploy" / "grafana"
DASHBOARDS = sorted((GRAFANA / "dashboards").glob("*.json"))
T0 = datetime(2025, 12, 1, tzinfo=UTC)  # the streamed job's clock (tests/agent/otlp_build.py)
JOB_RANGE = TimeRange(T0 - timedelta(hours=1), T0 + timedelta(days=1), interval_s=60)


def load(name: str) -> dict:
    return json.loads((GRAFANA / "dashboards" / name).read_text())


def sql_panels(dashboard: dict) -> list[dict]:
    return [p for p in dashboard["panels"] if p.get("targets")]


def plotted_columns(panel: dict) -> list[str]:
    """The columns the panel shows, in order (its organize transformation)."""
    organize = next(t for t in panel["transformations"] if t["id"] == "organize")
    order = organize["options"]["indexByName"]
    return sorted(order, key=order.get)


def constants(dashboard: dict) -> dict[str, Value]:
    return {v["name"]: v["query"] for v in dashboard["templating"]["list"] if v["type"] == "constant"}


@dataclass
class Result:
    columns: list[str]
    rows: list[tuple]

    def dicts(self) -> list[dict]:
        return [dict(zip(self.columns, r, strict=True)) for r in self.rows]

    def only(self) -> dict:
        assert len(self.rows) == 1, self.rows
        return self.dicts()[0]


@dataclass
class Grafana:
    """Runs a dashboard's SQL through the ClickHouse interface, as the data source would."""

    client: ClickHouseGo

    def run(self, dashboard: dict, sql: str, variables: dict[str, Value], time_range: TimeRange) -> Result:
        answer = self.client.query(expand(sql, {**constants(dashboard), **variables}, time_range))
        return Result(answer.columns, answer.rows)

    def panel(self, name: str, title: str, variables: dict[str, Value], time_range: TimeRange = JOB_RANGE) -> Result:
        dashboard = load(name)
        panel = next(p for p in sql_panels(dashboard) if p["title"] == title)
        return self.run(dashboard, panel["targets"][0]["rawSql"], variables, time_range)

    def variable(
        self, name: str, variable: str, variables: dict[str, Value], time_range: TimeRange = JOB_RANGE
    ) -> list[str]:
        dashboard = load(name)
        query = next(v for v in dashboard["templating"]["list"] if v["name"] == variable)["query"]
        return [r[0] for r in self.run(dashboard, query, variables, time_range).rows]


@pytest.fixture(scope="module")
def grafana(store_dir):
    """A second harborlight on the session store with the ClickHouse HTTP interface on, no tokens."""
    srv = InProcessServer(Settings(data_dir=store_dir, clickhouse_http_port=0)).start()
    yield Grafana(open_grafana_connection(srv.run.clickhouse_http_port, username="grafana"))
    srv.stop()


@pytest.fixture(scope="module")
def job(server) -> StreamedJob:
    """Five trials: resolved, failed, infra error, rate limited, still running (tests/query/job_stream.py).
    Their stored rows are derived before the panels read them (the server's keeper may be pausing between
    refreshes: an API read derives them at once)."""
    streamed = stream_job(server, uuid.uuid4().hex[:12])
    assert httpx.get(f"{server.http_url}/api/jobs/{streamed.job}", timeout=120).status_code == 200
    return streamed


@dataclass(frozen=True)
class RecentIngest:
    service: str
    spans: int
    truncated: int
    time_range: TimeRange


@pytest.fixture(scope="module")
def recent(server) -> RecentIngest:
    """Spans and log records stamped now (one span over the attribute size limit), for the ingest-health panels."""
    start = datetime.now(UTC) - timedelta(seconds=5)
    service = f"grafana-ingest-{uuid.uuid4().hex[:8]}"
    request = traces_request(service, 20, start=time.time_ns() - 2_000_000_000)
    big = request.resource_spans[0].scope_spans[0].spans[1].attributes.add()
    big.key, big.value.string_value = "tool.output", "x" * (server.settings.max_attribute_value_bytes + 10)
    logs = logs_request(service, 3)
    for record in logs.resource_logs[0].scope_logs[0].log_records:
        record.time_unix_nano = time.time_ns() - 1_000_000_000
    for path, body in (("traces", request), ("logs", logs)):
        answer = httpx.post(
            f"{server.http_url}/v1/{path}",
            content=body.SerializeToString(),
            headers={"content-type": "application/x-protobuf"},
            timeout=30,
        )
        assert answer.status_code == 200, answer.text
    server.caught_up()  # stored, for the grafana server's reads (they wait on that server's log only)
    return RecentIngest(
        service, 20, 1, TimeRange(start - timedelta(minutes=5), datetime.now(UTC) + timedelta(minutes=1), interval_s=10)
    )


@dataclass(frozen=True)
class PluginTrace:
    """One tenant's trace as the OpenTelemetry SDK exports it: a root span, a child with an event and a link,
    and two log records (ERROR, INFO) written inside the child."""

    service: str
    trace_id: str
    spans: int
    linked_trace_id: str


def send_plugin_trace(http_url: str, token: str, service: str) -> PluginTrace:
    from opentelemetry import _logs, trace
    from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    headers = {"authorization": f"Bearer {token}"} if token else {}
    resource = Resource.create({"service.name": service, "deployment.environment": "test"})
    tracer_provider = TracerProvider(resource=resource)
    tracer_provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(f"{http_url}/v1/traces", headers=headers)))
    logger_provider = LoggerProvider(resource=resource)
    logger_provider.add_log_record_processor(
        SimpleLogRecordProcessor(OTLPLogExporter(f"{http_url}/v1/logs", headers=headers))
    )
    tracer, logger = tracer_provider.get_tracer("plugin-test"), logger_provider.get_logger("plugin-test")
    linked = trace.SpanContext(int.from_bytes(os.urandom(16), "big"), int.from_bytes(os.urandom(8), "big"), False)
    with (
        tracer.start_as_current_span("agent.run", attributes={"gen_ai.request.model": "claude-sonnet-4"}) as root,
        tracer.start_as_current_span("tool.bash", links=[trace.Link(linked, {"link.kind": "retry"})]) as child,
    ):
        child.add_event("tool.output", {"exit_code": 0, "stream": "stdout"})
        for level, number in (("ERROR", _logs.SeverityNumber.ERROR), ("INFO", _logs.SeverityNumber.INFO)):
            logger.emit(
                _logs.LogRecord(body=f"{level.lower()} from {service}", severity_text=level, severity_number=number)
            )
        time.sleep(0.002)  # spans with a duration above 0
    tracer_provider.shutdown()
    logger_provider.shutdown()
    return PluginTrace(service, format(root.get_span_context().trace_id, "032x"), 2, format(linked.trace_id, "032x"))


PLUGIN_TENANTS = ("acme", "globex")


@dataclass
class PluginTenants:
    connections: dict[str, ClickHouseGo | ClickHouseGoNative]  # tenant -> the data source of that tenant's token
    traces: dict[str, PluginTrace]
    time_range: TimeRange


@dataclass
class PluginServer:
    server: InProcessServer
    tokens: dict[str, str]  # token -> tenant
    traces: dict[str, PluginTrace]
    time_range: TimeRange


@pytest.fixture(scope="module")
def plugin_server(store_dir, tmp_path_factory) -> PluginServer:
    """A harborlight with tenants on (tenant names of this module only), both ClickHouse ports (HTTP and native
    TCP) on, and a trace of each tenant."""
    run = uuid.uuid4().hex[:8]
    tokens = {f"grafana-{tenant}-{run}": f"{tenant}-{run}" for tenant in PLUGIN_TENANTS}
    tokens_file = tmp_path_factory.mktemp("grafana-auth") / "tokens"
    tokens_file.write_text("".join(f"{t} {n}\n" for t, n in tokens.items()))
    srv = InProcessServer(
        Settings(data_dir=store_dir, tokens_file=tokens_file, clickhouse_http_port=0, clickhouse_tcp_port=0)
    ).start()
    start = datetime.now(UTC) - timedelta(minutes=5)
    traces = {
        tenant.split("-")[0]: send_plugin_trace(srv.http_url, token, f"plugin-{tenant}")
        for token, tenant in tokens.items()
    }
    yield PluginServer(srv, tokens, traces, TimeRange(start, datetime.now(UTC) + timedelta(minutes=5), interval_s=60))
    srv.stop()


@pytest.fixture(scope="module", params=["http", "native"])
def plugin_tenants(request, plugin_server) -> PluginTenants:
    """The plugin's data source of each tenant, over the protocol of the parameter: HTTP (port 8123's interface)
    or native (its default, port 9000's)."""
    run = plugin_server.server.run
    if request.param == "http":
        connections = {
            tenant.split("-")[0]: open_grafana_connection(run.clickhouse_http_port, token)
            for token, tenant in plugin_server.tokens.items()
        }
    else:
        connections = {
            tenant.split("-")[0]: open_grafana_native(run.clickhouse_tcp_port, token)
            for token, tenant in plugin_server.tokens.items()
        }
    yield PluginTenants(connections, plugin_server.traces, plugin_server.time_range)
    if request.param == "native":
        for connection in connections.values():
            connection.close()
