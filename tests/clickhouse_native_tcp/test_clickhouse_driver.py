"""The native TCP port as clickhouse-driver (PyPI, the Python native-protocol driver) sees it: hello at a negotiated
revision, ping, SELECT 1, parameters, schema probes, a 100,000-row answer in many blocks with and without LZ4 and
ZSTD frames, a cancelled query, exceptions with ClickHouse's codes, tenants and the read-only rules (those of the
HTTP port: the same guard)."""

import time

import pytest
from clickhouse_driver import errors

from harborlight.sqlport.native_tcp.protocol import SERVER_REVISION
from tests.clickhouse_native_tcp.conftest import OPERATOR, TOKENS
from tests.grafana.plugin_statements import METADATA

ACME, GLOBEX = "tcp-acme", "tcp-globex"


def test_hello_negotiates_the_lower_revision_and_ping_answers(driver):
    client = driver()
    assert client.execute("SELECT 1") == [(1,)]
    info = client.connection.server_info
    assert info.name == "ClickHouse" and info.display_name == "harborlight"
    assert info.revision == SERVER_REVISION and info.used_revision == min(
        SERVER_REVISION, client.connection.client_revision
    )
    assert info.version_major >= 25 and info.timezone
    assert client.connection.ping()


def test_an_older_client_revision_is_answered_at_its_own(driver):
    client = driver(client_revision=54453)  # before the addendum, parameters and the query time in progress
    assert client.execute("SELECT number, toString(number) FROM numbers(3)") == [(0, "0"), (1, "1"), (2, "2")]
    assert client.connection.server_info.used_revision == 54453


def test_server_side_parameters_are_bound(driver):
    client = driver(settings={"server_side_params": True})
    assert client.execute("SELECT {s:String} AS s, {n:UInt32} + 1 AS n", params={"s": "it's \\ 'q'", "n": 41}) == [
        ("it's \\ 'q'", 42)
    ]


def test_totals_and_extremes_follow_the_rows(driver):
    """clickhouse-driver appends the rows of Totals and Extremes packets to the answer's."""
    rows = driver(ACME).execute(
        "SELECT number % 3 AS k, sum(number) AS s FROM numbers(10) GROUP BY k WITH TOTALS "
        "ORDER BY k SETTINGS extremes = 1"
    )
    assert rows == [(0, 18), (1, 12), (2, 15), (0, 45), (0, 12), (2, 18)]


def test_an_empty_answer_still_names_its_columns(driver):
    rows, columns = driver().execute(
        "SELECT number AS n, toString(number) AS s FROM numbers(10) WHERE n > 100", with_column_types=True
    )
    assert rows == [] and columns == [("n", "UInt64"), ("s", "String")]


@pytest.mark.parametrize(
    "name",
    [
        "databases",
        "tables",
        "describe",
        "columns of a table",
        "backend tables",
        "backend columns",
        "current database",
        "version",
    ],
)
def test_the_plugins_schema_probes_answer_a_tenant(driver, tenants_data, name):
    rows = driver(ACME).execute(METADATA[name])
    first = [row[0] for row in rows]
    expected = {
        "databases": "default",
        "tables": "otel_traces",
        "describe": "TraceId",
        "columns of a table": "Body",
        "backend tables": "default",
        "backend columns": "default",
        "current database": "default",
    }
    assert expected.get(name, first[0]) in first


@pytest.mark.parametrize("compression", [False, "lz4", "zstd"])
def test_a_100000_row_answer_arrives_whole_in_many_blocks(driver, compression):
    client = driver(ACME, compression=compression)
    sql = "SELECT number, toString(number) AS s, [number] AS a FROM numbers(100000)"
    blocks = list(client.execute_iter(sql, settings={"max_block_size": 10_000}, chunk_size=1))
    assert len(blocks) == 100_000 and blocks[0] == (0, "0", [0]) and blocks[-1] == (99999, "99999", [99999])
    assert client.last_query.profile_info.rows == 100_000 and client.last_query.profile_info.blocks >= 10


def test_a_cancelled_query_ends_and_the_connection_goes_on(driver):
    client = driver(ACME)
    progress = client.execute_with_progress(
        "SELECT sleepEachRow(0.5) FROM numbers(600) SETTINGS max_block_size = 1", settings={"interactive_delay": 50_000}
    )
    started = time.monotonic()
    for _ in progress:  # progress arrives while the statement runs
        break
    client.cancel()
    assert time.monotonic() - started < 120  # not the statement's 300 s
    assert client.execute("SELECT 2") == [(2,)]


def test_exceptions_carry_clickhouses_codes(driver):
    client = driver(ACME)
    with pytest.raises(errors.ServerException) as unknown:
        client.execute("SELECT * FROM no_such_table")
    assert unknown.value.code == 60 and "UNKNOWN_TABLE" in unknown.value.message
    with pytest.raises(errors.ServerException) as syntax:
        client.execute("SELEC 1")
    assert syntax.value.code == 62
    assert client.execute("SELECT 3") == [(3,)]  # the connection goes on after an exception


@pytest.mark.parametrize(
    "sql,code",
    [
        ("INSERT INTO otel_logs (Body) VALUES ('x')", 164),
        ("CREATE TABLE t (x UInt8) ENGINE = Memory", 164),
        ("DROP TABLE otel_logs", 164),
        ("SET readonly = 0", 164),
        ("SELECT 1 SETTINGS max_execution_time = 100000", 452),
        ("SELECT * FROM file('/etc/passwd')", 497),
    ],
)
def test_writes_and_escapes_are_refused_as_on_the_http_port(driver, sql, code):
    with pytest.raises(errors.ServerException) as refused:
        driver(ACME).execute(sql)
    assert refused.value.code == code


def test_a_setting_past_a_limit_is_refused(driver):
    with pytest.raises(errors.ServerException) as refused:
        driver(ACME).execute("SELECT 1", settings={"max_execution_time": 10**6})
    assert refused.value.code == 452


def test_a_wrong_password_is_refused_at_hello(driver):
    with pytest.raises(errors.ServerException) as refused:
        driver("not-a-token").execute("SELECT 1")
    assert refused.value.code == 516


def test_a_tenant_sees_nothing_of_another(driver, tenants_data):
    acme, globex = tenants_data["acme"], tenants_data["globex"]
    count = "SELECT ServiceName, count() FROM {table} WHERE ServiceName IN ('{a}', '{g}') GROUP BY ServiceName"
    for table in ("otel_traces", "otel_logs"):
        sql = count.format(table=table, a=acme, g=globex)
        assert {s for s, _ in driver(ACME).execute(sql)} == {acme}
        assert {s for s, _ in driver(GLOBEX).execute(sql)} == {globex}
        assert {s for s, _ in driver(OPERATOR).execute(sql)} == {acme, globex}
    with pytest.raises(errors.ServerException) as refused:  # a table whose parts mix tenants, or a secret one
        driver(ACME).execute("SELECT count() FROM system.parts")
    assert refused.value.code == 497
    assert TOKENS[ACME] == "acme"
