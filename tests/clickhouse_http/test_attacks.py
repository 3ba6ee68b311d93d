"""The SQL port under attack, as an attacker on 127.0.0.1 would try it against `serve --clickhouse-http-port`
with a tokens file: bodies sent to exhaust memory before or after authentication, compressed bombs, and bad
input that must get ClickHouse's own answer rather than a crash."""

import gzip
import time
import uuid

import httpx
import pytest

from tests.support.bombs import deflate_bomb, gzip_bomb
from tests.support.load import peak_rss_bytes
from tests.support.servers import SubprocessServer, free_port

LIMIT_MIB = 1024
TOKEN = "attack-acme"


@pytest.fixture(scope="module")
def sql_port(tmp_path_factory):
    tokens = tmp_path_factory.mktemp("attack-auth") / "tokens"
    tokens.write_text(f"{TOKEN} acme\n")
    port = free_port()
    srv = SubprocessServer(
        tmp_path_factory.mktemp("attack") / "store",
        (
            "--clickhouse-http-port",
            str(port),
            "--memory-limit-mib",
            str(LIMIT_MIB),
            "--tokens-file",
            str(tokens),
        ),
    ).start()
    srv.sql_url = f"http://127.0.0.1:{port}/"
    yield srv
    srv.stop()


def _stays_under_the_memory_limit(server) -> None:
    peak = peak_rss_bytes(server.process.pid)
    assert peak < LIMIT_MIB << 20, f"peak RSS {peak >> 20} MiB"


def test_an_unauthenticated_body_is_refused_before_it_is_read(sql_port):
    """1.5 GiB without a token: refused from the headers alone (the whole body was read first: 392 -> 3,460 MiB)."""

    def body():
        chunk = b"SELECT 1 " * (1 << 17)  # ~1.1 MiB
        for _ in range(1400):
            yield chunk

    try:
        answer = httpx.post(sql_port.sql_url, content=body(), timeout=120)
        assert answer.status_code == 403 and answer.headers["x-clickhouse-exception-code"] == "516"
    except httpx.TransportError:
        pass  # the server answered and closed the connection while the body was still being sent
    assert httpx.post(sql_port.sql_url, content=b"SELECT 1", auth=("u", TOKEN)).text == "1\n"
    _stays_under_the_memory_limit(sql_port)


@pytest.mark.parametrize("encoding,bomb", [("gzip", lambda: gzip_bomb(6 << 30)), ("deflate", deflate_bomb)])
def test_a_compressed_bomb_is_refused_at_the_body_limit(sql_port, encoding, bomb):
    """6 GiB of gzip in 6 MiB got the server OOM-killed; now it inflates up to --max-request-bytes only."""
    answer = httpx.post(
        sql_port.sql_url, content=bomb(), auth=("u", TOKEN), timeout=120, headers={"content-encoding": encoding}
    )
    assert answer.status_code == 413 and answer.headers["x-clickhouse-exception-code"] == "229"
    assert "inflates past 16777216 bytes" in answer.text
    _stays_under_the_memory_limit(sql_port)


def test_a_body_over_the_limit_is_refused_by_its_length(sql_port):
    answer = httpx.post(sql_port.sql_url, content=b"-- " + b"x" * (17 << 20), auth=("u", TOKEN), timeout=60)
    assert answer.status_code == 413 and "larger than 16777216 bytes" in answer.text


def test_bodies_that_are_not_their_coding_get_clickhouses_errors(sql_port):
    cut = httpx.post(
        sql_port.sql_url,
        content=gzip.compress(b"SELECT 1")[:-4],
        auth=("u", TOKEN),
        headers={"content-encoding": "gzip"},
    )
    assert (cut.status_code, cut.headers["x-clickhouse-exception-code"]) == (400, "354") and "cut short" in cut.text
    garbage = httpx.post(
        sql_port.sql_url, content=b"SELECT 1 is not gzip", auth=("u", TOKEN), headers={"content-encoding": "gzip"}
    )
    assert (garbage.status_code, garbage.headers["x-clickhouse-exception-code"]) == (400, "354"), garbage.text
    unknown = httpx.post(
        sql_port.sql_url, content=b"SELECT 1", auth=("u", TOKEN), headers={"content-encoding": "compress"}
    )
    assert unknown.status_code == 501 and "Unknown compression method 'compress'" in unknown.text
    two_members = gzip.compress(b"SELECT ") + gzip.compress(b"41 + 1")
    assert (
        httpx.post(sql_port.sql_url, content=two_members, auth=("u", TOKEN), headers={"content-encoding": "gzip"}).text
        == "42\n"
    )


@pytest.mark.parametrize(
    "sql,params,status,code",
    [
        ("SELECT " + "(" * 100_000 + "1" + ")" * 100_000, {}, 400, "306"),  # TOO_DEEP_RECURSION
        ("SELECT 1 FORMAT NoSuchFormat", {}, 404, "73"),  # UNKNOWN_FORMAT
        ("SELECT 1", {"default_format": "NoSuchFormat"}, 404, "73"),
        ("SELECT {x:UInt8}", {"param_x": "abc"}, 400, "457"),  # BAD_QUERY_PARAMETER
        ("SELECT {x:Array(UInt8)}", {"param_x": "[1, 'a']"}, 400, "130"),  # CANNOT_READ_ARRAY_FROM_TEXT
        ("SELECT 1", {"client_protocol_version": "abc"}, 400, "27"),
        ("SELEC 1", {}, 400, "62"),
    ],
)
def test_bad_input_gets_the_status_clickhouse_gives_its_code(sql_port, sql, params, status, code):
    """ClickHouse's exceptionCodeToHTTPStatus: 400 for syntax and parse errors, 404 for unknown names; a malformed
    request is 400 too, with the engine's code (a too-deep statement and a bad query parameter are 500 on a
    server)."""
    answer = httpx.post(sql_port.sql_url, params=params, content=sql.encode(), auth=("u", TOKEN), timeout=60)
    assert (answer.status_code, answer.headers["x-clickhouse-exception-code"]) == (status, code), answer.text[:300]
    assert answer.text.startswith(f"Code: {code}. DB::Exception:") and "formatQuerySingleLine" not in answer.text


def test_a_statement_stops_when_its_client_goes(guarded, ch_port):
    """A statement that would sleep for 150 s, whose client gives up after 2 s: the engine stops it (it kept
    running after its client had gone)."""
    marker = f"gone_{uuid.uuid4().hex[:8]}"
    sql = f"SELECT sum(sleepEachRow(0.5)) AS {marker} FROM numbers(300) SETTINGS max_block_size = 1"
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(f"http://127.0.0.1:{ch_port}/", content=sql.encode(), auth=("u", "ch-acme"), timeout=2)
    running = f"SELECT count() FROM system.processes WHERE query LIKE '%{marker}%' AND query NOT LIKE '%processes%'"
    for _ in range(300):  # the statement would run for 150 s; once cancelled it is gone within a block or two
        if guarded.sql(running) == [(0,)]:
            break
        time.sleep(0.1)
    assert guarded.sql(running) == [(0,)]
