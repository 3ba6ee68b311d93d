"""The HTTP interface as ClickHouse clients see it on the wire: formats, headers, compression, errors."""

import bz2
import gzip
import json
import lzma
import zlib

import brotli
import httpx
import lz4.frame
import pytest

try:
    from compression import zstd  # Python 3.14
except ImportError:
    from backports import zstd

from tests.clickhouse_http.conftest import OPERATOR

# Each method's reference decoder (the libraries' own, not the interface's coding table).
DECODERS = {
    "gzip": gzip.decompress,
    "deflate": zlib.decompress,
    "br": brotli.decompress,
    "xz": lzma.decompress,
    "bz2": bz2.decompress,
    "lz4": lz4.frame.decompress,
    "zstd": zstd.decompress,
}


def ask(port: int, sql: str, token: str = "ch-acme", **params) -> httpx.Response:
    return httpx.post(f"http://127.0.0.1:{port}/", params=params, content=sql.encode(), auth=("default", token))


def test_ping_and_root_answer_ok(ch_port):
    for path in ("/ping", "/"):
        answer = httpx.get(f"http://127.0.0.1:{ch_port}{path}")
        assert answer.status_code == 200 and answer.text == "Ok.\n"


@pytest.mark.parametrize(
    "fmt",
    [
        "Native",
        "JSON",
        "JSONEachRow",
        "TabSeparatedWithNamesAndTypes",
        "RowBinaryWithNamesAndTypes",
        "JSONCompact",
        "CSVWithNames",
    ],
)
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
    answer = httpx.get(
        f"http://127.0.0.1:{ch_port}/",
        params={"query": "SELECT 40 + 2", "query_id": "q-1"},
        headers={"X-ClickHouse-User": "default", "X-ClickHouse-Key": OPERATOR},
    )
    assert answer.text == "42\n" and answer.headers["x-clickhouse-query-id"] == "q-1"


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "br", "zstd", "xz", "bz2", "lz4"])
def test_responses_are_compressed_as_clickhouse_compresses_them(ch_port, encoding):
    """ClickHouse 26.9 (the engine's version) compresses whenever Accept-Encoding names a method it writes:
    enable_http_compression defaults to 1 since 25.10; 0 in the URL turns it off."""
    sql = b"SELECT number FROM numbers(1000)"
    with httpx.stream(
        "POST",
        f"http://127.0.0.1:{ch_port}/",
        content=sql,
        auth=("u", "ch-acme"),
        headers={"Accept-Encoding": encoding},
    ) as answer:
        raw = b"".join(answer.iter_raw())
    assert answer.headers["content-encoding"] == encoding
    decoded = DECODERS[encoding](raw)
    assert decoded.decode().splitlines()[-1] == "999"
    plain = httpx.post(
        f"http://127.0.0.1:{ch_port}/",
        params={"enable_http_compression": "0"},
        content=sql,
        auth=("u", "ch-acme"),
        headers={"Accept-Encoding": encoding},
    )
    assert "content-encoding" not in plain.headers and plain.text.splitlines()[-1] == "999"


def test_the_method_is_chosen_in_clickhouses_order_whatever_the_header_says(ch_port):
    def chosen(accept: str) -> str | None:
        answer = httpx.post(
            f"http://127.0.0.1:{ch_port}/",
            content=b"SELECT 1",
            auth=("u", "ch-acme"),
            headers={"Accept-Encoding": accept},
        )
        return answer.headers.get("content-encoding")

    assert chosen("gzip;q=1.0, zstd;q=0.1") == "zstd"  # a substring test: q-values are not read
    assert chosen("deflate, gzip") == "gzip"
    assert chosen("snappy") is None and chosen("identity") is None


def test_gzip_request_bodies_are_read(ch_port):
    answer = httpx.post(
        f"http://127.0.0.1:{ch_port}/",
        content=gzip.compress(b"SELECT 7"),
        auth=("u", "ch-acme"),
        headers={"Content-Encoding": "gzip"},
    )
    assert answer.text == "7\n"


def test_errors_carry_the_clickhouse_code_header_and_body(ch_port):
    refused = ask(ch_port, "INSERT INTO otel_logs (Body) VALUES ('x')")
    # 500, as a ClickHouse server answers READONLY (exceptionCodeToHTTPStatus leaves it unmapped)
    assert refused.status_code == 500 and refused.headers["x-clickhouse-exception-code"] == "164"
    assert refused.text.startswith("Code: 164. DB::Exception:") and "READONLY" in refused.text
    unknown = ask(ch_port, "SELECT * FROM no_such_table")
    assert unknown.status_code == 404 and unknown.headers["x-clickhouse-exception-code"] == "60"
    assert unknown.text.startswith("Code: 60.")
    no_token = httpx.post(f"http://127.0.0.1:{ch_port}/", content=b"SELECT 1")
    assert no_token.status_code == 403 and no_token.headers["x-clickhouse-exception-code"] == "516"
    lifting = ask(ch_port, "SELECT 1", readonly="0", allow_introspection_functions="1")
    assert lifting.headers["x-clickhouse-exception-code"] == "164"
    assert "Cannot modify 'allow_introspection_functions' setting in readonly mode" in lifting.text
    harmless = ask(ch_port, "SELECT getSetting('max_threads')", max_threads="1")
    assert harmless.text == "1\n"
