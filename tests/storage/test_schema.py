"""The exporter schema is created idempotently, versioned, and carries the TTL when asked."""

import clickhouse_connect
import pytest

from storage import SCHEMA_VERSION, ensure_schema

TABLES = {
    "otel_traces": "MergeTree", "otel_traces_trace_id_ts": "AggregatingMergeTree",
    "otel_traces_trace_id_ts_mv": "MaterializedView", "otel_logs": "MergeTree",
    "otel_metrics_gauge": "MergeTree", "otel_metrics_sum": "MergeTree", "otel_metrics_histogram": "MergeTree",
}


@pytest.fixture
def fresh_database(server, store_dir, unique):
    """A client on the session's engine, in a database of its own."""
    admin = server.store.client
    admin.command(f"CREATE DATABASE schema_{unique}")
    client = clickhouse_connect.get_client(interface="chdb", path=str(store_dir.resolve()), database=f"schema_{unique}")
    yield client, f"schema_{unique}"
    admin.command(f"DROP DATABASE schema_{unique}")


def test_schema_is_created_twice_without_change_and_records_its_version(fresh_database):
    client, database = fresh_database
    assert ensure_schema(client) == SCHEMA_VERSION
    assert ensure_schema(client) == SCHEMA_VERSION
    tables = dict(client.query(
        "SELECT name, engine FROM system.tables WHERE database = {d:String}", parameters={"d": database}
    ).result_rows)
    assert {name: tables.get(name) for name in TABLES} == TABLES
    assert client.query("SELECT Version FROM harborlight_schema_migrations ORDER BY Version").result_rows == [
        (v,) for v in range(1, SCHEMA_VERSION + 1)
    ]
    columns = dict(client.query(
        "SELECT name, type FROM system.columns WHERE database = {d:String} AND table = 'otel_logs'",
        parameters={"d": database},
    ).result_rows)
    assert columns["EventName"] == "String" and "TimestampTime" not in columns


def test_retention_days_adds_the_exporters_ttl(fresh_database):
    client, database = fresh_database
    ensure_schema(client, retention_days=7)
    engines = dict(client.query(
        "SELECT name, engine_full FROM system.tables WHERE database = {d:String}", parameters={"d": database}
    ).result_rows)
    assert "TTL toDateTime(Timestamp) + toIntervalDay(7)" in engines["otel_traces"]
    assert "TTL toDateTime(Start) + toIntervalDay(7)" in engines["otel_traces_trace_id_ts"]
    assert "TTL toDateTime(TimeUnix) + toIntervalDay(7)" in engines["otel_metrics_sum"]
    assert "ttl_only_drop_parts = 1" in engines["otel_logs"]
