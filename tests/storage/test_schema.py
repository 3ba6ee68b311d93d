"""The exporter schema is created idempotently, versioned, carries the TTL when asked, and its views
follow the statements of the running version."""

from datetime import datetime

import clickhouse_connect
import pytest

from harborlight.store import SCHEMA_VERSION, ensure_schema
from harborlight.store.schema import statement, view_comment
from harborlight.store.schema_ddl import REBUILT, TENANT_KEYS, TENANT_PARTS_VERSION
from tests.support.dies_at_insert import DiesAtInsert
from tests.support.old_schema import downgrade_to_schema_2
from tests.support.old_tenant_parts import downgrade_to_shared_parts

TABLES = {
    "otel_traces": "MergeTree",
    "otel_traces_trace_id_ts": "AggregatingMergeTree",
    "otel_traces_trace_id_ts_mv": "MaterializedView",
    "otel_logs": "MergeTree",
    "otel_metrics_gauge": "MergeTree",
    "otel_metrics_sum": "MergeTree",
    "otel_metrics_histogram": "MergeTree",
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
    tables = dict(
        client.query(
            "SELECT name, engine FROM system.tables WHERE database = {d:String}", parameters={"d": database}
        ).result_rows
    )
    assert {name: tables.get(name) for name in TABLES} == TABLES
    assert client.query("SELECT Version FROM harborlight_schema_migrations ORDER BY Version").result_rows == [
        (v,) for v in range(1, SCHEMA_VERSION + 1)
    ]
    columns = dict(
        client.query(
            "SELECT name, type FROM system.columns WHERE database = {d:String} AND table = 'otel_logs'",
            parameters={"d": database},
        ).result_rows
    )
    assert columns["EventName"] == "String" and "TimestampTime" not in columns


def test_retention_days_adds_the_exporters_ttl(fresh_database):
    client, database = fresh_database
    ensure_schema(client, retention_days=7)
    engines = dict(
        client.query(
            "SELECT name, engine_full FROM system.tables WHERE database = {d:String}", parameters={"d": database}
        ).result_rows
    )
    assert "TTL toDateTime(Timestamp) + toIntervalDay(7)" in engines["otel_traces"]
    assert "TTL toDateTime(Start) + toIntervalDay(7)" in engines["otel_traces_trace_id_ts"]
    assert "TTL toDateTime(TimeUnix) + toIntervalDay(7)" in engines["otel_metrics_sum"]
    assert "ttl_only_drop_parts = 1" in engines["otel_logs"]


def _view(client, database, name):
    return client.query(
        "SELECT uuid, comment FROM system.tables WHERE database = {d:String} AND name = {n:String}",
        parameters={"d": database, "n": name},
    ).result_rows


def _insert_chat_span(client, span_id):
    client.insert(
        "otel_traces",
        [[datetime(2025, 1, 1), "t" * 32, span_id, "", "chat m", "svc", {"gen_ai.operation.name": "chat"}]],
        column_names=["Timestamp", "TraceId", "SpanId", "ParentSpanId", "SpanName", "ServiceName", "SpanAttributes"],
    )
    return client.query(
        "SELECT Kind FROM agent_events WHERE SpanId = {s:String}", parameters={"s": span_id}
    ).result_rows


def test_a_view_from_an_older_rule_table_is_created_again_and_its_rows_classified_again(fresh_database):
    client, database = fresh_database
    ensure_schema(client)
    current = _view(client, database, "agent_events_traces_mv")
    assert current[0][1] == view_comment(statement("agent_events_traces_mv"))
    ensure_schema(client)
    assert _view(client, database, "agent_events_traces_mv") == current  # unchanged: not created again

    # What an older harborlight left: a view of other rules (chat spans were groups), without a hash.
    client.command("DROP VIEW agent_events_traces_mv")
    client.command(statement("agent_events_traces_mv").replace("'llm_request'", "'group'"))
    assert _insert_chat_span(client, "old") == [("group",)]
    client.insert(
        "otel_logs",
        [[datetime(2025, 1, 1), "svc", "codex.user_prompt", {"conversation.id": "c1"}]],
        column_names=["Timestamp", "ServiceName", "EventName", "LogAttributes"],
    )
    log_rows = "SELECT Kind, EventId FROM agent_events WHERE SourceTable = 'otel_logs'"
    before = client.query(log_rows).result_rows
    assert [kind for kind, _ in before] == ["user_message"]

    ensure_schema(client)
    assert _view(client, database, "agent_events_traces_mv")[0][1] == current[0][1]
    assert _insert_chat_span(client, "new") == [("llm_request",)]
    # The span stored under the old rules is classified again by the new ones, once.
    assert client.query("SELECT Kind FROM agent_events WHERE SpanId = 'old'").result_rows == [("llm_request",)]
    assert client.query("SELECT count() FROM agent_events").result_rows == [(3,)]  # one row per span or event
    assert client.query(log_rows).result_rows == before  # the logs view did not change: its rows stay as they were


def _old_rules(client, edit):
    """Leaves the traces view as an older harborlight would have: another statement, no hash."""
    client.command("DROP VIEW agent_events_traces_mv")
    client.command(edit(statement("agent_events_traces_mv")))


@pytest.mark.parametrize("dies", ["before", "after"])
def test_a_start_that_dies_while_classifying_again_is_completed_by_the_next(fresh_database, dies):
    """Killed once its old rows are deleted, or once the new ones are written: either way the next
    start re-derives every row, exactly once (its identical blocks are not taken for retries)."""
    client, database = fresh_database
    ensure_schema(client)
    _old_rules(client, lambda sql: sql.replace("'llm_request'", "'group'"))
    assert _insert_chat_span(client, "old") == [("group",)]
    old_view = _view(client, database, "agent_events_traces_mv")

    with pytest.raises(KeyboardInterrupt):
        ensure_schema(DiesAtInsert(client, "INSERT INTO agent_events", after=dies == "after"))
    assert _view(client, database, "agent_events_traces_mv") == old_view  # not swapped: the next start redoes it
    ensure_schema(client)
    assert client.query("SELECT Kind FROM agent_events WHERE SpanId = 'old'").result_rows == [("llm_request",)]


def test_a_store_from_before_request_ids_gets_the_column_and_its_stored_model_calls_get_theirs(fresh_database):
    """Schema 2 had no RequestId: the next start adds the column, and the new views derive the stored
    rows again, so a model call stored before the upgrade pairs with its twin by request id too."""
    client, database = fresh_database
    ensure_schema(client)
    downgrade_to_schema_2(client)
    client.insert(
        "otel_traces",
        [
            [
                datetime(2025, 1, 1),
                "t" * 32,
                "s1",
                "",
                "chat m",
                "svc",
                {"gen_ai.operation.name": "chat", "request_id": "req_1"},
            ]
        ],
        column_names=["Timestamp", "TraceId", "SpanId", "ParentSpanId", "SpanName", "ServiceName", "SpanAttributes"],
    )

    assert ensure_schema(client) == SCHEMA_VERSION
    assert client.query("SELECT Kind, RequestId, Provenance['request_id'] FROM agent_events").result_rows == [
        ("llm_request", "req_1", "measured")
    ]
    assert client.query("SELECT max(Version) FROM harborlight_schema_migrations").result_rows == [(SCHEMA_VERSION,)]


def test_a_store_from_before_session_ids_gets_the_column_and_its_index(fresh_database):
    """A store from before SessionId (schema 3: no column, no index, views that write none): the next start
    adds the column and the bloom index a new store's table has, which every trial read's session look-up
    prunes by."""
    client, database = fresh_database
    ensure_schema(client)
    for view in ("agent_events_traces_mv", "agent_events_logs_mv", "agent_names_mv"):
        client.command(f"DROP VIEW {view}")
    client.command("DROP TABLE agent_names")
    client.command("ALTER TABLE agent_events DROP INDEX idx_session_id")
    client.command("ALTER TABLE agent_events DROP COLUMN SessionId")
    client.command("DELETE FROM harborlight_schema_migrations WHERE Version >= 4")

    assert ensure_schema(client) == SCHEMA_VERSION
    indexes = dict(
        client.query(
            "SELECT name, expr FROM system.data_skipping_indices "
            "WHERE database = {d:String} AND table = 'agent_events'",
            parameters={"d": database},
        ).result_rows
    )
    assert indexes.get("idx_session_id") == "SessionId"


RAW_TENANT = "ResourceAttributes['harborlight.tenant']"


def _tenant_span(client, tenant: str, span_id: str) -> None:
    client.insert(
        "otel_traces",
        [
            [
                datetime(2025, 1, 1),
                tenant[0] * 32,
                span_id,
                "",
                "chat m",
                "svc",
                {"gen_ai.operation.name": "chat"},
                {"harborlight.tenant": tenant},
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
    )


def _shared_parts(client, table: str) -> int:
    """How many of the table's parts hold more than one tenant's rows, after every merge was forced."""
    client.command(f"OPTIMIZE TABLE {table} FINAL")
    tenant = TENANT_KEYS[table]
    return client.command(
        f"SELECT count() FROM (SELECT _part FROM {table} GROUP BY _part HAVING uniqExact({tenant}) > 1)"
    )


def _old_store_of_two_tenants(client):
    """A schema-9 store (no tenant in any partition key) with two tenants' spans, agent events and trial rows."""
    ensure_schema(client)
    downgrade_to_shared_parts(client)
    for tenant in ("acme", "globex"):
        for n in range(2):
            _tenant_span(client, tenant, f"{tenant}-{n}")
        client.insert(
            "trial_rows",
            [[tenant, "job", f"{tenant}-trial", 1, 0, False, 0, "{}", "{}"]],
            column_names=["Tenant", "job", "trial", "Version", "Deleted", "is_running", "n_events", "Facts", "Row"],
        )
    return _merged_counts(client)


def _merged_counts(client) -> dict[str, int]:
    """The rows of each table with a tenant that schema 9 had, once every merge was forced."""
    for table in REBUILT[TENANT_PARTS_VERSION]:
        client.command(f"OPTIMIZE TABLE {table} FINAL")
    return {table: client.command(f"SELECT count() FROM {table}") for table in REBUILT[TENANT_PARTS_VERSION]}


def test_a_store_from_before_gets_each_tenants_rows_in_parts_of_their_own(fresh_database):
    """Schema 9 merged two tenants' rows into one part (a tenant's PREWHERE then ran on the other's rows): the
    next start makes each table again with the tenant leading its partition key, keeping every row, gives the
    trace-id index its rows' tenant, and the views go on deriving into the new tables."""
    client, database = fresh_database
    stored = _old_store_of_two_tenants(client)
    assert _shared_parts(client, "otel_traces") == 1 and _shared_parts(client, "agent_events") == 1
    assert _shared_parts(client, "trial_rows") == 1

    assert ensure_schema(client) == SCHEMA_VERSION
    keys = dict(
        client.query(
            "SELECT name, partition_key FROM system.tables WHERE database = {d:String}", parameters={"d": database}
        ).result_rows
    )
    assert _merged_counts(client) == stored
    for table, tenant in TENANT_KEYS.items():
        assert keys[table] == tenant or keys[table].startswith(f"({tenant}, "), (table, keys[table])
        assert _shared_parts(client, table) == 0, table
    assert client.query("SELECT TraceId, Tenant FROM otel_traces_trace_id_ts ORDER BY Tenant").result_rows == [
        ("a" * 32, "acme"),
        ("g" * 32, "globex"),
    ]
    _tenant_span(client, "globex", "globex-after")
    assert client.query("SELECT Tenant FROM agent_events WHERE SpanId = 'globex-after'").result_rows == [("globex",)]
    assert client.command("SELECT count() FROM otel_traces_trace_id_ts WHERE Tenant = 'globex'") >= 1
    assert client.query("SELECT max(Version) FROM harborlight_schema_migrations").result_rows == [(SCHEMA_VERSION,)]


@pytest.mark.parametrize("dies", ["before", "after"])
def test_a_start_that_dies_while_keeping_tenants_apart_is_completed_by_the_next(fresh_database, dies):
    """Killed at the trace-id index's fill, before or after it ran: the next start fills it again, once."""
    client, _ = fresh_database
    stored = _old_store_of_two_tenants(client)
    with pytest.raises(KeyboardInterrupt):
        ensure_schema(DiesAtInsert(client, "INSERT INTO otel_traces_trace_id_ts", after=dies == "after"))
    assert ensure_schema(client) == SCHEMA_VERSION
    assert _merged_counts(client) == stored
    assert client.query(
        "SELECT Tenant, count() FROM otel_traces_trace_id_ts FINAL GROUP BY Tenant ORDER BY Tenant"
    ).result_rows == [("acme", 1), ("globex", 1)]
