"""Leaves a store as schema 9 left it: every table's partition key without the tenant (two tenants' rows merge
into one part), and the trace-id index without its rows' tenant: what an upgrade must bring up to date."""

from importlib.resources import files

from clickhouse_connect.driver.client import Client

from harborlight.store.schema_ddl import REBUILT, TENANT_KEYS, TENANT_PARTS_VERSION, plain_schema

OLD_TRACE_INDEX_VIEW = """CREATE MATERIALIZED VIEW IF NOT EXISTS otel_traces_trace_id_ts_mv \
TO otel_traces_trace_id_ts AS
SELECT
    TraceId,
    min(toDateTime(Timestamp)) AS Start,
    max(toDateTime(Timestamp)) AS End
FROM otel_traces
WHERE TraceId != ''
GROUP BY TraceId"""


def old_statement(name: str) -> str:
    """A table's statement as schema 9 had it: its file's, the tenant not in its partition key."""
    sql = files("harborlight.store").joinpath("sql", f"{name}.sql").read_text()
    for column in ("Timestamp", "Start", "TimeUnix"):
        sql = sql.replace(f"{{ttl:{column}}}\n", "")
    if name == "otel_traces_trace_id_ts":
        sql = sql.replace(",\n    Tenant LowCardinality(String)\n", "\n")
    return sql


def downgrade_to_shared_parts(client: Client) -> None:
    """`client`'s store, made by the current ensure_schema (and empty), back at schema 9."""
    views = [s for s in plain_schema() if s.kind == "view"]
    for view in views:
        client.command(f"DROP VIEW {view.name}")
    for name in TENANT_KEYS:
        client.command(f"DROP TABLE {name}")
        if name in REBUILT[TENANT_PARTS_VERSION]:  # (a table a later migration made is not there at schema 9)
            client.command(old_statement(name))
    for view in views:
        client.command(OLD_TRACE_INDEX_VIEW if view.name == "otel_traces_trace_id_ts_mv" else view.sql)
    client.command(f"DELETE FROM harborlight_schema_migrations WHERE Version >= {TENANT_PARTS_VERSION}")
