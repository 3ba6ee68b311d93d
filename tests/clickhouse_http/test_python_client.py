"""The ClickHouse HTTP interface through clickhouse-connect, the Python client Grafana users script with."""

import clickhouse_connect
import pytest
from clickhouse_connect.driver.exceptions import DatabaseError

from tests.clickhouse_http.conftest import OPERATOR


def client(port: int, token: str, **kwargs):
    return clickhouse_connect.get_client(host="127.0.0.1", port=port, username="grafana", password=token, **kwargs)


def test_a_tenant_reads_its_own_spans_and_nothing_else(ch_port, tenants_data):
    acme = client(ch_port, "ch-acme")
    rows = acme.query(
        "SELECT DISTINCT ServiceName FROM otel_traces WHERE ServiceName IN {s:Array(String)}",
        parameters={"s": list(tenants_data.values())},
    ).result_rows
    assert rows == [(tenants_data["acme"],)]
    assert acme.query(
        "SELECT count() FROM otel_logs WHERE ServiceName = {s:String}", parameters={"s": tenants_data["globex"]}
    ).result_rows == [(0,)]
    operator = client(ch_port, OPERATOR)
    assert operator.query(
        "SELECT count(DISTINCT ServiceName) FROM otel_traces WHERE ServiceName IN {s:Array(String)}",
        parameters={"s": list(tenants_data.values())},
    ).result_rows == [(2,)]


def test_agent_events_and_trace_lookup_tables_are_tenant_scoped(ch_port, tenants_data):
    acme = client(ch_port, "ch-acme")
    services = list(tenants_data.values())
    seen = acme.query(
        "SELECT DISTINCT ServiceName FROM agent_events WHERE ServiceName IN {s:Array(String)}",
        parameters={"s": services},
    ).result_rows
    assert seen == [(tenants_data["acme"],)]
    other_traces = (
        client(ch_port, OPERATOR)
        .query(
            "SELECT DISTINCT TraceId FROM otel_traces WHERE ServiceName = {s:String}",
            parameters={"s": tenants_data["globex"]},
        )
        .result_rows
    )
    assert other_traces
    assert acme.query(
        "SELECT count() FROM otel_traces_trace_id_ts WHERE TraceId = {t:String}", parameters={"t": other_traces[0][0]}
    ).result_rows == [(0,)]


ESCAPES = [
    "SELECT count() FROM (SELECT * FROM otel_traces) WHERE ServiceName = {s:String}",
    "SELECT count() FROM otel_traces AS t JOIN default.otel_traces AS u ON t.SpanId = u.SpanId "
    "WHERE u.ServiceName = {s:String}",
    "WITH x AS (SELECT * FROM default.otel_traces) SELECT count() FROM x WHERE ServiceName = {s:String}",
    "SELECT count() FROM view(SELECT * FROM otel_traces) WHERE ServiceName = {s:String}",
    "SELECT count() FROM otel_traces WHERE ServiceName = {s:String} AND TraceId IN (SELECT TraceId FROM otel_traces)",
]


@pytest.mark.parametrize("sql", ESCAPES)
def test_a_tenant_cannot_reach_another_tenants_rows_by_subquery_join_alias_or_view(ch_port, tenants_data, sql):
    acme, operator = client(ch_port, "ch-acme"), client(ch_port, OPERATOR)
    assert acme.query(sql, parameters={"s": tenants_data["globex"]}).result_rows == [(0,)]
    assert operator.query(sql, parameters={"s": tenants_data["globex"]}).result_rows[0][0] > 0  # the rows exist


VIEWS = [
    "SELECT count() FROM otel_traces_trace_id_ts_mv WHERE TraceId IN "
    "(SELECT TraceId FROM otel_traces WHERE ServiceName = {s:String})",
    "SELECT count() FROM agent_events_traces_mv WHERE ServiceName = {s:String}",
    "SELECT (SELECT count() FROM agent_events_traces_mv WHERE ServiceName = {s:String})",
    "SELECT count() FROM harborlight_ingested_requests",
]


@pytest.mark.parametrize("sql", VIEWS)
def test_a_tenant_reads_no_view_and_no_table_without_tenant_parts(ch_port, tenants_data, sql):
    """A materialized view (read the table it writes) and a table with no tenant column keep every tenant's rows
    in the same parts: a tenant's statement naming one is refused before the engine analyses it."""
    acme, operator = client(ch_port, "ch-acme"), client(ch_port, OPERATOR)
    with pytest.raises(DatabaseError) as refused:
        acme.query(sql, parameters={"s": tenants_data["globex"]})
    assert "Code: 497" in str(refused.value) and "not readable by a tenant" in str(refused.value)
    operator.query(sql, parameters={"s": tenants_data["globex"]})


REFUSED = [
    ("INSERT INTO otel_traces (TraceId) VALUES ('x')", 164),
    ("CREATE TABLE stolen (a Int32) ENGINE = Memory", 164),
    ("DROP TABLE otel_traces", 164),
    ("ALTER TABLE otel_traces DELETE WHERE 1", 164),
    ("SELECT count() FROM otel_traces SETTINGS readonly = 0", 164),
    ("SELECT count() FROM otel_traces SETTINGS allow_ddl = 1", 392),
    ("SELECT * FROM (SELECT count() FROM otel_traces SETTINGS use_query_cache = 1)", 164),
    ("SET allow_introspection_functions = 1", 164),
    ("SELECT * FROM merge('default', '^otel_traces$')", 497),
    ("SELECT * FROM file('/etc/passwd', 'LineAsString')", 497),
    ("SELECT file('/etc/hostname')", 497),
    ("SELECT * FROM url('http://127.0.0.1:1/', 'LineAsString')", 497),
    ("SELECT * FROM remote('127.0.0.1', default.otel_traces)", 497),
    ("SELECT * FROM s3('http://127.0.0.1:1/b/k', 'CSV')", 497),
    ("SELECT query FROM system.query_log", 497),
    ("SELECT * FROM system.processes", 497),
    ("SELECT 1 INTO OUTFILE '/tmp/harborlight-outfile'", 164),
    ("SELECT 1; SELECT file('/etc/hostname')", 62),
    ("KILL QUERY WHERE 1", 164),
    ("SYSTEM DROP MARK CACHE", 164),
]


@pytest.mark.parametrize("sql,code", REFUSED)
def test_writes_ddl_file_and_network_reads_and_guard_changes_are_refused(ch_port, tenants_data, sql, code):
    with pytest.raises(DatabaseError) as refused:
        client(ch_port, "ch-acme").command(sql)
    assert f"Code: {code}." in str(refused.value)


def test_a_bad_token_and_a_syntax_error_are_clickhouse_errors(ch_port):
    with pytest.raises(DatabaseError) as bad_token:
        client(ch_port, "not-a-token")
    assert "Code: 516." in str(bad_token.value) and "AUTHENTICATION_FAILED" in str(bad_token.value)
    with pytest.raises(DatabaseError) as syntax:
        client(ch_port, "ch-acme").query("SELEC 1")
    assert "Code: 62." in str(syntax.value) and "Syntax error" in str(syntax.value)


def test_typed_results_arrow_and_dataframes_come_through(ch_port, tenants_data):
    acme = client(ch_port, "ch-acme", compress=True)
    result = acme.query(
        "SELECT ServiceName, Timestamp, SpanAttributes, Duration FROM otel_traces "
        "WHERE ServiceName = {s:String} ORDER BY Timestamp",
        parameters={"s": tenants_data["acme"]},
    )
    assert len(result.result_rows) == 3
    assert result.result_rows[0][2]["gen_ai.request.model"] == "claude-sonnet-4"
    table = acme.query_arrow(
        "SELECT SpanName FROM otel_traces WHERE ServiceName = {s:String}", parameters={"s": tenants_data["acme"]}
    )
    assert table.num_rows == 3
    assert acme.command("SHOW TABLES LIKE 'otel_traces'") == "otel_traces"
    assert "TraceId" in [row[0] for row in acme.query("DESCRIBE TABLE otel_traces").result_rows]
