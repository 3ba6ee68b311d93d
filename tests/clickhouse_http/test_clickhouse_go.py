"""The interface as clickhouse-go v2.47 (Grafana's ClickHouse data source) reads it over HTTP: the hello query at
revision 54460, later answers at the revision the server reports, BlockInfo and the per-column serialization
byte, ping's `1` column, and every column type the plugin's queries return. The client
(tests/support/clickhouse_go.py) is written from clickhouse-go's source and ClickHouse's Native format
description, not from harborlight's writer."""

import datetime as dt
import decimal
import gzip
import uuid

import pytest

from tests.support.clickhouse_go import ClickHouseGo, DriverError, open_grafana_connection


def test_connect_and_ping_as_the_plugin_does(ch_port):
    connection = open_grafana_connection(ch_port, "ch-acme")
    hello = connection.handshake
    assert hello.version.count(".") >= 2 and hello.revision > 54460
    assert connection.revision == hello.revision  # later answers are decoded at the reported revision
    assert connection.query("SELECT 1").columns == ["1"]


def test_answers_carry_block_info_and_the_serialization_byte(ch_port):
    """The bytes clickhouse-go expects at revision 54460 for `SELECT 1`, from the format description:
    BlockInfo (1, false, 2, -1, 0), 1 column, 1 row, name "1", type "UInt8", serialization 0, the value."""
    answer, raw = ClickHouseGo(ch_port, "ch-acme").post("SELECT 1")
    assert answer.status_code == 200 and answer.headers["x-clickhouse-format"] == "Native"
    assert answer.headers["content-encoding"] == "gzip"  # Accept-Encoding: gzip, as ClickHouse 26.9 answers it
    assert gzip.decompress(raw) == bytes.fromhex("01 00 02 ff ff ff ff 00 01 01 01 31 05 55 49 6e 74 38 00 01")


def test_without_a_protocol_version_native_stays_revision_0(ch_port):
    import httpx

    answer = httpx.post(
        f"http://127.0.0.1:{ch_port}/?default_format=Native", content=b"SELECT 1", auth=("default", "ch-acme")
    )
    assert answer.content == bytes.fromhex("01 01 01 31 05 55 49 6e 74 38 01")


TYPED = """
SELECT toInt8(-1) AS i8, toUInt16(2) AS u16, toInt32(-3) AS i32, toUInt64(4) AS u64, toInt128(-5) AS i128,
       toFloat32(1.5) AS f32, toFloat64(2.25) AS f64, true AS b, 'text' AS s, toFixedString('ab', 2) AS fs,
       toNullable('n') AS ns, CAST(NULL, 'Nullable(UInt8)') AS nu, toLowCardinality('lc') AS lc,
       CAST(toNullable('x'), 'LowCardinality(Nullable(String))') AS lcn, toDate('2025-12-01') AS d,
       toDateTime('2025-12-01 10:00:00', 'UTC') AS t, toDateTime64('2025-12-01 10:00:00.123456789', 9, 'UTC') AS t64,
       toDecimal64(12.34, 2) AS dec, toUUID('01234567-89ab-cdef-0123-456789abcdef') AS id,
       CAST('b', 'Enum8(\\'a\\' = 1, \\'b\\' = 2)') AS e, [1, 2] AS arr, [[1], [], [2, 3]] AS nested,
       map('k', 'v') AS m, [map('a', 'b'), map()] AS tags, (1, 'x') AS tup,
       CAST((1, 'x'), 'Tuple(n UInt8, s String)') AS named,
       [toLowCardinality('p'), toLowCardinality('q')] AS lcs, map(toLowCardinality('lk'), 1) AS lcm,
       NULL AS nothing
"""


def test_every_column_type_the_plugin_reads_decodes(ch_port):
    connection = open_grafana_connection(ch_port, "ch-acme")
    (row,) = connection.query(TYPED).dicts()
    assert row == {
        "i8": -1,
        "u16": 2,
        "i32": -3,
        "u64": 4,
        "i128": -5,
        "f32": 1.5,
        "f64": 2.25,
        "b": True,
        "s": "text",
        "fs": b"ab",
        "ns": "n",
        "nu": None,
        "lc": "lc",
        "lcn": "x",
        "d": dt.date(2025, 12, 1),
        "t": dt.datetime(2025, 12, 1, 10, tzinfo=dt.UTC),
        "t64": dt.datetime(2025, 12, 1, 10, 0, 0, 123456, tzinfo=dt.UTC),
        "dec": decimal.Decimal("12.34"),
        "id": uuid.UUID("01234567-89ab-cdef-0123-456789abcdef"),
        "e": "b",
        "arr": [1, 2],
        "nested": [[1], [], [2, 3]],
        "m": {"k": "v"},
        "tags": [{"a": "b"}, {}],
        "tup": (1, "x"),
        "named": (1, "x"),
        "lcs": ["p", "q"],
        "lcm": {"lk": 1},
        "nothing": None,
    }


def test_many_blocks_and_empty_answers(ch_port):
    connection = open_grafana_connection(ch_port, "ch-acme")
    many = connection.query(
        "SELECT number, toString(number) AS s, [number] AS a FROM numbers(5000) SETTINGS max_block_size = 1000"
    )
    assert [r[0] for r in many.rows] == list(range(5000)) and many.rows[4321] == (4321, "4321", [4321])
    empty = connection.query("SELECT 1 WHERE 0")
    assert empty.rows == []


def test_a_refusal_is_the_drivers_http_error_with_clickhouses_message(ch_port):
    connection = open_grafana_connection(ch_port, "ch-acme")
    # READONLY is 500 on a ClickHouse server too (exceptionCodeToHTTPStatus does not map it)
    with pytest.raises(DriverError, match=r"\[HTTP 500\] response body: \"Code: 164\."):
        connection.query("INSERT INTO otel_logs (Body) VALUES ('x')")
    with pytest.raises(DriverError, match=r"\[HTTP 403\].*Code: 516"):
        open_grafana_connection(ch_port, "not-a-token")
