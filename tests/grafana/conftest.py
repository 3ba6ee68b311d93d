"""A streamed job, and the dashboards' panels run against it the way Grafana runs them: variables and the
data source's macros expanded for a fixed time range, then the SQL sent to harborlight's read-only
ClickHouse HTTP interface (what the provisioned data source talks to) over the shared session store, through
a client that sends and decodes as the data source's driver, clickhouse-go v2.47, does
(tests/support/clickhouse_go.py)."""

import json
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from harborlight.settings import Settings
from tests.grafana.macros import TimeRange, Value, expand
from tests.support.clickhouse_go import ClickHouseGo, open_grafana_connection
from tests.query.job_stream import StreamedJob, stream_job
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
        return [dict(zip(self.columns, r)) for r in self.rows]

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

    def variable(self, name: str, variable: str, variables: dict[str, Value],
                 time_range: TimeRange = JOB_RANGE) -> list[str]:
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
    """Five trials: resolved, failed, infra error, rate limited, still running (tests/query/job_stream.py)."""
    return stream_job(server, uuid.uuid4().hex[:12])


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
        answer = httpx.post(f"{server.http_url}/v1/{path}", content=body.SerializeToString(),
                            headers={"content-type": "application/x-protobuf"}, timeout=30)
        assert answer.status_code == 200, answer.text
    return RecentIngest(service, 20, 1, TimeRange(start - timedelta(minutes=5), datetime.now(UTC)
                                                  + timedelta(minutes=1), interval_s=10))
