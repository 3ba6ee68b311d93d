"""The native TCP port as clickhouse-go v2 (Grafana's data source on its default protocol) reads it, at revision
54460 with the plugin's settings: the hellos (the optional fields read by the server's revision), the addendum,
ping, block framing at the agreed revision (BlockInfo, the serialization byte), progress with the query's time,
profile info, LZ4 and ZSTD frames with their CityHash128, cancel, exceptions. The client
(tests/support/clickhouse_go_tcp.py) is written from clickhouse-go's source, not from harborlight's server. The
plugin's own statements over this client are in tests/grafana/test_plugin_statements.py (parametrized by wire)."""

import time

import httpx
import pytest

from tests.clickhouse_http.test_clickhouse_go import TYPED
from tests.support.clickhouse_go_tcp import (
    SERVER_DATA,
    SERVER_END_OF_STREAM,
    SERVER_EXTREMES,
    SERVER_PROFILE_INFO,
    SERVER_PROGRESS,
    SERVER_TOTALS,
    ClickHouseGoNative,
    ServerError,
    open_grafana_native,
)

ACME = "tcp-acme"


@pytest.fixture
def go(tcp_port):
    opened = []

    def connect(password: str = ACME, **kwargs) -> ClickHouseGoNative:
        opened.append(open_grafana_native(tcp_port, password, **kwargs))
        return opened[-1]

    yield connect
    for connection in opened:
        connection.close()


def test_hello_ping_and_select_1_at_54460(go):
    connection = go()
    assert connection.server.revision >= 54460 and connection.revision == 54460
    assert connection.server.display_name == "harborlight" and connection.server.version[0] >= 25
    answer = connection.run("SELECT 1")
    assert answer.result.columns == ["1"] and answer.result.rows == [(1,)]
    # progress while it runs; the columns first (no rows), then the rows; profile info, the last progress, the end
    assert [p for p in answer.packets if p != SERVER_PROGRESS] == [
        SERVER_DATA,
        SERVER_DATA,
        SERVER_PROFILE_INFO,
        SERVER_END_OF_STREAM,
    ]
    assert answer.packets[-2:] == [SERVER_PROGRESS, SERVER_END_OF_STREAM]
    assert answer.profile_info[:2] == (1, 1)
    connection.ping()


def test_every_column_type_the_plugin_reads_decodes_as_over_http(go, http_port):
    from tests.support.clickhouse_go import open_grafana_connection

    native = go().query(TYPED)
    over_http = open_grafana_connection(http_port, ACME).query(TYPED)
    assert native.columns == over_http.columns and native.types == over_http.types
    assert native.rows == over_http.rows and len(native.rows) == 1


@pytest.mark.parametrize("compression", [None, "lz4", "zstd"])
def test_many_blocks_with_and_without_compression(go, compression):
    connection = go(compression=compression)
    answer = connection.run(
        "SELECT number, toString(number) AS s FROM numbers(100000)", settings={"max_block_size": "10000"}
    )
    assert len(answer.result.rows) == 100_000 and answer.result.rows[-1] == (99999, "99999")
    assert answer.blocks >= 10
    if compression:  # answered in the method the client wrote its own block in
        assert set(connection._reader.frame_methods) == {0x82 if compression == "lz4" else 0x90}


def test_network_compression_method_picks_the_answers_frames(go):
    connection = go(compression="lz4")
    connection.run("SELECT 1", settings={"network_compression_method": "zstd"})
    assert set(connection._reader.frame_methods) == {0x90}


def test_totals_and_extremes_come_in_their_own_packets_when_asked(go):
    answer = go(compression="lz4").run(
        "SELECT number % 3 AS k, sum(number) AS s, toString(k) AS t FROM numbers(10) GROUP BY k WITH TOTALS ORDER BY k",
        settings={"extremes": "1"},
    )
    assert answer.result.rows == [(0, 18, "0"), (1, 12, "1"), (2, 15, "2")]
    assert answer.totals == [(0, 45, "0")] and answer.extremes == [(0, 12, "0"), (2, 18, "2")]
    after_rows = [p for p in answer.packets if p not in (SERVER_DATA, SERVER_PROGRESS)]
    assert after_rows == [SERVER_TOTALS, SERVER_EXTREMES, SERVER_PROFILE_INFO, SERVER_END_OF_STREAM]
    plain = go().run("SELECT 1")
    assert SERVER_TOTALS not in plain.packets and SERVER_EXTREMES not in plain.packets


def test_parameters_travel_as_field_dumps(go):
    """A parameter's value is its Field dump unquoted, then read as ClickHouse reads a query parameter (escaped
    text: a backslash escapes, as in HTTP's param_ values)."""
    answer = go().query("SELECT {s:String} AS s, {n:UInt8} AS n", parameters={"s": "o'k \\\\ \\t", "n": "7"})
    assert answer.rows == [("o'k \\ \t", 7)]


def test_progress_carries_the_querys_time_while_it_runs_and_cancel_ends_it(go):
    connection = go()
    connection.send_query(
        "SELECT sleepEachRow(0.5) FROM numbers(600) SETTINGS max_block_size = 1",
        settings={"interactive_delay": "50000"},
    )
    started = time.monotonic()
    assert connection._reader.take(1)[0] == SERVER_PROGRESS
    elapsed_ns = connection._progress()[-1]
    assert elapsed_ns > 0
    connection.cancel()
    answer = connection.receive()
    assert answer.packets[-1] == SERVER_END_OF_STREAM and time.monotonic() - started < 120
    assert connection.query("SELECT 5").rows == [(5,)]


def test_an_exception_is_the_servers_code_and_message(go):
    connection = go()
    with pytest.raises(ServerError) as refused:
        connection.query("SELECT * FROM no_such_table")
    assert refused.value.code == 60 and refused.value.name == "DB::Exception"
    assert refused.value.message.startswith("Unknown table") and refused.value.message.endswith("(UNKNOWN_TABLE)")
    with pytest.raises(ServerError) as readonly:
        connection.query("INSERT INTO otel_logs (Body) VALUES ('x')")
    assert readonly.value.code == 164
    assert connection.query("SELECT 1").rows == [(1,)]


def test_a_wrong_token_is_refused_in_the_handshake(tcp_port):
    with pytest.raises(ServerError) as refused:
        ClickHouseGoNative(tcp_port, "not-a-token").connect()
    assert refused.value.code == 516


def test_native_and_http_answer_100000_rows_alike(go, http_port):
    """Both ports read the same rows; the times of one run are printed (compare ratios, not figures)."""
    sql = "SELECT number, toString(number) AS s FROM numbers(100000)"
    started = time.monotonic()
    native = go().query(sql)
    native_s = time.monotonic() - started
    started = time.monotonic()
    answer = httpx.post(
        f"http://127.0.0.1:{http_port}/?default_format=Native", content=sql, auth=("grafana", ACME), timeout=300
    )
    http_s = time.monotonic() - started
    assert answer.status_code == 200 and len(native.rows) == 100_000
    print(f"100,000 rows: native TCP {native_s:.3f} s (decoded in Python), HTTP Native {http_s:.3f} s (not decoded)")
