"""`serve --cluster NAME` on the cluster form: harborlight's own reads and writes go through Distributed
tables, the views fire on the local tables, and a store that is not the cluster form is refused in one line.

The server is the chDB-backed stand-in for ClickHouse's HTTP interface, configured with a cluster of one shard
whose replica is the engine itself (Distributed tables then read and write the local tables in-process, as a
ClickHouse server does for its local replica). The schema is applied with `apply_cluster_schema` as each node's
DDL worker runs an ON CLUSTER statement: without the clause (chDB has no Keeper for the worker;
tests/support/standin_process.py)."""

from datetime import datetime

import httpx
import pytest

from harborlight.store import ensure_schema
from harborlight.store.schema_cluster import apply_cluster_schema, cluster_schema_problems
from harborlight.store.schema_ddl import SHARD_KEYS, Cluster
from tests.agent.otlp_build import Traces
from tests.cli.commands import process
from tests.storage.test_server_mode import reader
from tests.support.old_metrics import downgrade_metrics_on_cluster
from tests.support.servers import SubprocessServer, free_port
from tests.support.standin_process import AsEachNodeRunsIt, one_shard_cluster

CLUSTER = Cluster("hl")


@pytest.fixture(scope="module")
def standin(tmp_path_factory):
    server = one_shard_cluster(tmp_path_factory.mktemp("cluster"), CLUSTER)
    yield server
    server.stop()


def test_the_applied_cluster_form_is_what_serve_checks_for(standin):
    client = reader(standin.url)
    assert cluster_schema_problems(client, CLUSTER) == []
    engines = dict(client.query("SELECT name, engine FROM system.tables WHERE database = 'default'").result_rows)
    assert (engines["otel_traces"], engines["otel_traces_local"]) == ("Distributed", "MergeTree")
    assert client.query("SELECT count() FROM harborlight_schema_migrations").result_rows[0][0] >= 5
    # Applied again: nothing is missing, so nothing but the idempotent statements runs; no view is made again.
    ran = apply_cluster_schema(AsEachNodeRunsIt(client, CLUSTER), CLUSTER)
    assert not [s for s in ran if s.kind == "view"]


def test_a_trial_sent_to_serve_on_the_cluster_lands_on_the_local_tables_and_is_summarised(standin, tmp_path, unique):
    srv = SubprocessServer(tmp_path / "receiver", ("--clickhouse-url", standin.url, "--cluster", CLUSTER.name)).start()
    try:
        job, trial = f"job-{unique}", f"{unique}-on-cluster"
        harness = Traces(
            {
                "service.name": "harness",
                "harbor.job.name": job,
                "harbor.trial.name": trial,
                "harbor.task.name": "fix-bug",
            }
        )
        root = harness.span("harbor.trial", start_ms=0, dur_ms=9_000)
        harness.span("harbor.agent_execution", parent=root, start_ms=100, dur_ms=5_000)
        harness.span(
            "chat gpt-5",
            {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-5", "gen_ai.usage.input_tokens": 1000},
            parent=root,
            start_ms=200,
            dur_ms=100,
        )
        harness.span("harbor.verifier", {"harbor.reward.reward": 1.0}, parent=root, start_ms=5_200, dur_ms=3_000)
        harness.send(srv)
        harness.send(srv)  # an exporter's retry: stored once
        srv.caught_up()
        reply = httpx.get(f"{srv.http_url}/api/trials/{trial}", timeout=60)
        assert reply.status_code == 200, reply.text
        row = reply.json()
        assert (row["outcome"]["value"], row["reward"]["value"], row["n_input_tokens"]["value"]) == (
            "resolved",
            1.0,
            1000,
        )
    finally:
        srv.stop()
    client = reader(standin.url)
    local = "SELECT count() FROM {t:Identifier} WHERE ResourceAttributes['harbor.trial.name'] = {n:String}"
    assert client.query(local, parameters={"t": "otel_traces_local", "n": trial}).result_rows == [(4,)]
    events = "SELECT count() FROM agent_events_local WHERE TrialName = {n:String}"
    assert client.query(events, parameters={"n": trial}).result_rows == [(4,)]
    assert client.query(
        "SELECT count() FROM trial_rows_local FINAL WHERE trial = {n:String}", parameters={"n": trial}
    ).result_rows == [(1,)]


def test_serve_refuses_a_store_that_is_not_the_cluster_form(standin, tmp_path, unique):
    client = reader(standin.url)
    client.command(f"CREATE DATABASE plain_{unique}")
    plain = standin.url.rsplit("/", 1)[0] + f"/plain_{unique}"
    ensure_schema(reader(plain))
    done = process(
        "serve",
        "--clickhouse-url",
        plain,
        "--cluster",
        CLUSTER.name,
        "--data-dir",
        str(tmp_path),
        "--grpc-port",
        str(free_port()),
        "--http-port",
        str(free_port()),
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(
        "harborlight: the store's tables are not the cluster form of hl: "
        "harborlight_schema_migrations is MergeTree, not Distributed;"
    )
    assert "harborlight schema --cluster hl [--replicated] apply" in done.stderr


@pytest.mark.parametrize(
    "options, says",
    [
        ((), "--cluster names the cluster of a ClickHouse server: give --clickhouse-url too"),
        (
            ("--clickhouse-url", "http://127.0.0.1:1/default", "--retention-days", "7"),
            "give --retention-days to harborlight schema --cluster hl apply",
        ),
    ],
)
def test_serve_on_a_cluster_refuses_options_it_cannot_honour_in_one_line(tmp_path, options, says):
    done = process(
        "serve",
        "--cluster",
        "hl",
        *options,
        "--data-dir",
        str(tmp_path),
        "--grpc-port",
        str(free_port()),
        "--http-port",
        str(free_port()),
    )
    assert done.returncode == 1 and done.stdout == "" and done.stderr.count("\n") == 1
    assert says in done.stderr


def test_a_cluster_store_from_before_the_names_table_gets_its_events_names(standin, unique):
    """Applied on a cluster whose agent events were stored before agent_names: the stored events' names are
    taken through the Distributed tables, so a trial read finds who names its trace's records."""
    client = reader(standin.url)
    trace, trial = unique * 2 + "abcdefgh", f"{unique}-named"
    client.insert(
        "otel_traces",
        [
            [
                datetime(2025, 1, 1),
                trace,
                "s1",
                "",
                "chat m",
                "svc",
                {"gen_ai.operation.name": "chat"},
                {"harbor.trial.name": trial},
            ]
        ],
        column_names=[
            "Timestamp",
            "TraceId",
            "SpanId",
            "ParentSpanId",
            "SpanName",
            "ServiceName",
            "SpanAttributes",
            "ResourceAttributes",
        ],
        settings={"distributed_foreground_insert": 1},
    )
    names = "SELECT Job, argMinMerge(Namer).2 FROM agent_names WHERE Name = {t:String} GROUP BY Job ORDER BY Job"
    taken = client.query(names, parameters={"t": trace}).result_rows
    assert taken == [("", trial)]  # named by the view on the shard's agent events
    client.command("TRUNCATE TABLE agent_names_local")  # what a store from before left: no names, no version
    client.command("DELETE FROM harborlight_schema_migrations_local WHERE Version = 8")
    assert client.query(names, parameters={"t": trace}).result_rows == []
    apply_cluster_schema(AsEachNodeRunsIt(client, CLUSTER), CLUSTER)
    assert client.query(names, parameters={"t": trace}).result_rows == taken


def test_a_cluster_store_of_the_metrics_form_before_gets_every_metrics_table_with_its_rows(standin, unique):
    """Applied on a cluster whose gauge, sum and histogram tables are of the form before the exporter's v0.160
    metrics form (and that has no exponential histogram or summary table): each shard's local table is made again
    in the new form with its rows, the fronts over the new columns, and the new types' tables made."""
    client = reader(standin.url)
    downgrade_metrics_on_cluster(
        AsEachNodeRunsIt(client, CLUSTER), CLUSTER.name, SHARD_KEYS[CLUSTER.shard_by]["otel_metrics_sum"]
    )
    assert "otel_metrics_summary is missing" in cluster_schema_problems(client, CLUSTER)
    when, day_after = datetime(2025, 12, 1, 0, 1, 0, 999_999), datetime(2025, 12, 2, 0, 1, 0, 999_999)
    client.insert(
        "otel_metrics_sum",
        [
            [{"harbor.trial.name": unique}, unique, "tokens", when, t, 1500.0, 1, True] for t in (when, day_after)
        ],  # two partitions
        column_names=[
            "ResourceAttributes",
            "ServiceName",
            "MetricName",
            "StartTimeUnix",
            "TimeUnix",
            "Value",
            "AggregationTemporality",
            "IsMonotonic",
        ],
        settings={"distributed_foreground_insert": 1},
    )

    apply_cluster_schema(AsEachNodeRunsIt(client, CLUSTER), CLUSTER)
    assert cluster_schema_problems(client, CLUSTER) == []
    types = (
        "SELECT table, type FROM system.columns WHERE database = 'default' AND name = 'TimeUnix' "
        "AND table LIKE 'otel_metrics_%' ORDER BY table"
    )
    assert client.query(types).result_rows == [
        (f"otel_metrics_{t}{local}", "DateTime")
        for t in ("exponential_histogram", "gauge", "histogram", "sum", "summary")
        for local in ("", "_local")
    ]
    sorting = "SELECT sorting_key FROM system.tables WHERE database = 'default' AND name = 'otel_metrics_sum_local'"
    assert client.query(sorting).result_rows == [
        ("ServiceName, MetricName, toStartOfHour(TimeUnix), cityHash64(Attributes), TimeUnix",)
    ]
    for table in ("otel_metrics_sum", "otel_metrics_sum_local"):  # the rows, through the front and on the shard
        rows = client.query(
            f"SELECT MetricName, toUnixTimestamp(TimeUnix), Value FROM {table} "
            "WHERE ServiceName = {s:String} ORDER BY TimeUnix",
            parameters={"s": unique},
        ).result_rows
        assert rows == [("tokens", 1_764_547_260, 1500.0), ("tokens", 1_764_547_260 + 86_400, 1500.0)]
    leftovers = "SELECT name FROM system.tables WHERE database = 'default' AND name LIKE 'otel_metrics_%_v%'"
    assert client.query(leftovers).result_rows == []
