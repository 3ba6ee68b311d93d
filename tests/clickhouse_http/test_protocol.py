"""The HTTP interface as ClickHouse clients see it on the wire: formats, headers, compression, errors."""

import gzip
import json

import httpx
import pytest

from tests.clickhouse_http.conftest import OPERATOR


def ask(port: int, sql: str, token: str = "ch-acme", **params) -> httpx.Response:
    return httpx.post(f"http://127.0.0.1:{port}/", params=params, content=sql.encode(), auth=("default", token))


def test_ping_and_root_answer_ok(ch_port):
    for path in ("/ping", "/"):
        answer = httpx.get(f"http://127.0.0.1:{ch_port}{path}")
        assert answer.status_code == 200 and answer.text == "Ok.\n"


@pytest.mark.parametrize("fmt", ["Native", "JSON", "JSONEachRow", "TabSeparatedWithNamesAndTypes",
                                 "RowBinaryWithNamesAndTypes", "JSONCompact", "CSVWithNames"])
def test_each_format_clients_ask_for_is_the_engines_own_output(ch_port, fmt):
    answer = ask(ch_port, "SELECT 1 AS one, 'a' AS s", default_format=fmt)
    assert answer.status_code == 200, answer.text
    assert answer.headers["x-clickhouse-format"] == fmt
    summary = json.loads(answer.headers["x-clickhouse-summary"])
    assert set(summary) >= {"read_rows", "read_bytes", "written_rows", "elapsed_ns"}
    assert answer.headers["x-clickhouse-timezone"] and answer.headers["x-clickhouse-query-id"]
    assert answer.headers["x-clickhouse-server-display-name"] == "harborlight"
    if fmt == "JSON":
        assert answer.json()["data"] == [{"one": 1, "s": "a"}]
    if fmt == "TabSeparatedWithNamesAndTypes":
        assert answer.text == "one\ts\nUInt8\tString\n1\ta\n"


def test_a_format_clause_wins_and_is_reported(ch_port):
    answer = ask(ch_port, "SELECT 2 AS two FORMAT JSONEachRow", default_format="Native")
    assert answer.headers["x-clickhouse-format"] == "JSONEachRow" and answer.json() == {"two": 2}


def test_query_in_the_url_and_key_header_and_query_id(ch_port):
    answer = httpx.get(f"http://127.0.0.1:{ch_port}/", params={"query": "SELECT 40 + 2", "query_id": "q-1"},
                       headers={"X-ClickHouse-User": "default", "X-ClickHouse-Key": OPERATOR})
    assert answer.text == "42\n" and answer.headers["x-clickhouse-query-id"] == "q-1"


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
def test_responses_are_compressed_when_asked(ch_port, encoding):
    answer = httpx.post(f"http://127.0.0.1:{ch_port}/", params={"enable_http_compression": "1"},
                        content=b"SELECT number FROM numbers(1000)", auth=("u", "ch-acme"),
                        headers={"Accept-Encoding": encoding})
    assert answer.headers["content-encoding"] == encoding
    assert answer.text.splitlines()[-1] == "999"  # httpx decodes both
    plain = httpx.post(f"http://127.0.0.1:{ch_port}/", content=b"SELECT 1", auth=("u", "ch-acme"),
                       headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in plain.headers


def test_gzip_request_bodies_are_read(ch_port):
    answer = httpx.post(f"http://127.0.0.1:{ch_port}/", content=gzip.compress(b"SELECT 7"), auth=("u", "ch-acme"),
                        headers={"Content-Encoding": "gzip"})
    assert answer.text == "7\n"


def test_errors_carry_the_clickhouse_code_header_and_body(ch_port):
    refused = ask(ch_port, "INSERT INTO otel_logs (Body) VALUES ('x')")
    assert refused.status_code == 403 and refused.headers["x-clickhouse-exception-code"] == "164"
    assert refused.text.startswith("Code: 164. DB::Exception:") and "READONLY" in refused.text
    unknown = ask(ch_port, "SELECT * FROM no_such_table")
    assert unknown.headers["x-clickhouse-exception-code"] == "60" and unknown.text.startswith("Code: 60.")
    no_token = httpx.post(f"http://127.0.0.1:{ch_port}/", content=b"SELECT 1")
    assert no_token.headers["x-clickhouse-exception-code"] == "516"
    dangerous = ask(ch_port, "SELECT 1", additional_table_filters="{}")
    assert dangerous.headers["x-clickhouse-exception-code"] == "164"
    harmless = ask(ch_port, "SELECT getSetting('max_threads')", max_threads="1")
    assert harmless.text == "1\n"
