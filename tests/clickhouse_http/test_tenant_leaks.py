"""Tenant A can neither read nor count tenant B's data through the engine's own tables, EXPLAIN, virtual
columns or the trace-id index, as an attacker holding A's token would try: B's failed statement in
system.errors, row counts in system.parts / parts_columns / tables.total_rows / information_schema.tables /
EXPLAIN ESTIMATE / system.events, and B's trace start through a shared trace id."""

import uuid

import httpx
import pytest

from tests.clickhouse_http.conftest import OPERATOR
from tests.support.otlp import traces_request


def ask(port: int, sql: str, token: str = "ch-acme", **params) -> httpx.Response:
    return httpx.post(
        f"http://127.0.0.1:{port}/", params=params, content=sql.encode(), auth=("default", token), timeout=120
    )  # a loaded machine's first statement can take longer than httpx's 5 s


def test_another_tenants_failed_statement_is_not_in_system_errors(ch_port, tenants_data):
    secret = f"globex-secret-{uuid.uuid4().hex[:6]}"
    failed = ask(ch_port, f"SELECT toUInt32('{secret}')", "ch-globex")
    assert failed.status_code != 200 and secret in failed.text
    leaked = ask(ch_port, "SELECT last_error_message FROM system.errors")
    assert leaked.headers["x-clickhouse-exception-code"] == "497" and secret not in leaked.text
    assert secret in ask(ch_port, "SELECT last_error_message FROM system.errors", OPERATOR).text  # it is there


COUNTING = [
    "SELECT sum(rows) FROM system.parts WHERE table = 'otel_traces'",
    "SELECT count() FROM system.parts_columns",
    "SELECT total_rows FROM system.tables WHERE name = 'otel_traces'",
    "SELECT * FROM system.tables WHERE name = 'otel_traces'",
    "SELECT name FROM system.tables WHERE total_rows > 0",
    "WITH t AS (SELECT total_bytes AS b FROM system.tables) SELECT sum(b) FROM t",
    "SELECT data_compressed_bytes FROM system.columns WHERE table = 'otel_traces'",
    "SELECT table_rows FROM information_schema.tables WHERE table_name = 'otel_traces'",
    "SELECT * FROM information_schema.TABLES",
    "SELECT value FROM system.events WHERE event = 'SelectedRows'",
    "SELECT * FROM system.metrics",
    "EXPLAIN ESTIMATE SELECT * FROM otel_traces",
    "EXPLAIN indexes = 1 SELECT * FROM otel_traces WHERE TraceId = 'x'",
    "EXPLAIN QUERY TREE SELECT (SELECT sum(total_rows) FROM system.tables)",
    "SHOW TABLES WHERE total_rows > 10",
    "SELECT max(_part_offset), count(DISTINCT _part) FROM otel_traces",
    "SELECT * FROM view(SELECT total_rows FROM system.tables)",
]


@pytest.mark.parametrize("sql", COUNTING)
def test_a_tenant_cannot_count_other_tenants_rows(ch_port, tenants_data, sql):
    answer = ask(ch_port, sql)
    assert answer.headers.get("x-clickhouse-exception-code") == "497", answer.text[:300]
    assert ask(ch_port, sql, OPERATOR).status_code == 200  # the operator may


SCHEMA = [
    ("SELECT database, name FROM system.tables ORDER BY database, name", "otel_traces"),
    ("SELECT name, type FROM system.columns WHERE table = 'otel_logs'", "SeverityText"),
    ("SELECT table_name FROM information_schema.tables WHERE table_schema = 'default'", "otel_traces"),
    ("SHOW TABLES LIKE 'otel%'", "otel_traces"),
    ("SELECT name FROM system.functions WHERE name = 'multiSearchAny'", "multiSearchAny"),
    ("EXPLAIN SYNTAX SELECT ServiceName FROM otel_traces", "ServiceName"),
    ("SELECT count() FROM system.tables WHERE database = 'default'", ""),
]


@pytest.mark.parametrize("sql,expected", SCHEMA)
def test_a_tenant_still_reads_names_types_and_definitions(ch_port, tenants_data, sql, expected):
    answer = ask(ch_port, sql)
    assert answer.status_code == 200 and expected in answer.text, answer.text[:300]


def test_a_shared_trace_id_shows_no_other_tenants_trace_bounds(guarded, ch_port):
    """B writes spans under A's trace id, an hour before and after A's: A's view of the trace-id index keeps
    A's own bounds or shows no row, never B's times."""
    acme = traces_request(f"acme-shared-{uuid.uuid4().hex[:6]}", 2)
    trace_id = acme.resource_spans[0].scope_spans[0].spans[0].trace_id
    globex = traces_request(
        "globex-shared", 2, start=acme.resource_spans[0].scope_spans[0].spans[0].start_time_unix_nano - 3600 * 10**9
    )
    for span in globex.resource_spans[0].scope_spans[0].spans:
        span.trace_id = trace_id
    late = globex.resource_spans[0].scope_spans[0].spans[1]
    late.start_time_unix_nano = late.end_time_unix_nano = late.start_time_unix_nano + 7200 * 10**9
    for token, request in (("ch-acme", acme), ("ch-globex", globex)):
        answer = httpx.post(
            f"{guarded.http_url}/v1/traces",
            content=request.SerializeToString(),
            headers={"content-type": "application/x-protobuf", "authorization": f"Bearer {token}"},
        )
        assert answer.status_code == 200, answer.text
    sql = (
        f"SELECT toUnixTimestamp(min(Start)), toUnixTimestamp(max(End)) FROM otel_traces_trace_id_ts "
        f"WHERE TraceId = '{trace_id.hex()}' FORMAT JSONCompactEachRow"
    )
    own_start = acme.resource_spans[0].scope_spans[0].spans[0].start_time_unix_nano // 10**9
    everyone = ask(ch_port, sql, OPERATOR).json()
    assert everyone[0] < own_start  # the index does hold globex's earlier span
    seen = ask(ch_port, sql).json()
    assert seen in ([own_start, own_start], [0, 0])  # acme's own bounds, or no row (min/max of nothing)


SERVER_FUNCTIONS = [
    "SELECT getServerSetting('path')",
    "SELECT hostName()",
    "SELECT FQDN()",
    "SELECT serverUUID()",
    "SELECT getMacro('shard')",
    "SELECT filesystemAvailable()",
    "SELECT tcpPort()",
    "SELECT count() FROM otel_traces WHERE ServiceName = hostname()",
]


@pytest.mark.parametrize("sql", SERVER_FUNCTIONS)
def test_a_tenant_is_told_nothing_of_the_server(ch_port, tenants_data, sql):
    """getServerSetting('path') told a tenant the store's data directory."""
    answer = ask(ch_port, sql)
    assert answer.headers.get("x-clickhouse-exception-code") == "497", answer.text[:300]
    assert "tells of the server" in answer.text


def test_a_tenant_still_reads_the_version_and_its_own_settings(ch_port, tenants_data):
    answer = ask(ch_port, "SELECT version() != '', getSetting('max_temporary_data_on_disk_size_for_query')")
    assert answer.status_code == 200 and answer.text == f"1\t{64 << 20}\n", answer.text
    assert ask(ch_port, "SELECT getServerSetting('path') != ''", OPERATOR).text == "1\n"


def test_a_tenants_statement_spills_within_its_quota(ch_port, tenants_data):
    """An external GROUP BY writes at most max_temporary_data_on_disk_size_for_query (64 MiB unless the caller asks
    less) to the store's disk: one tenant's had filled 232 of its 320 MiB."""
    more = ask(ch_port, "SELECT 1 SETTINGS max_temporary_data_on_disk_size_for_query = 1000000000")
    assert more.headers.get("x-clickhouse-exception-code") == "452", more.text
    unlimited = ask(ch_port, "SELECT 1", max_temporary_data_on_disk_size_for_query="0")
    assert unlimited.headers.get("x-clickhouse-exception-code") == "452", unlimited.text
    spill = ask(
        ch_port,
        "SELECT count() FROM (SELECT number % 1000000 AS k, any(toString(number)) FROM "
        "numbers(2000000) GROUP BY k) SETTINGS max_bytes_before_external_group_by = 4000000, "
        "max_temporary_data_on_disk_size_for_query = 100000",
    )
    assert spill.headers.get("x-clickhouse-exception-code") == "396", spill.text[:300]  # TOO_MANY_ROWS_OR_BYTES
    assert "Limit for temporary files size exceeded" in spill.text
