"""Bodies sent to kill the server: gzip and deflate bombs and oversized bodies on every route that reads a
body (OTLP/HTTP and /api/import/otlp) are refused with 413 and a reason, and the process stays under its
--memory-limit-mib throughout; a gzip body cut before its trailer is refused with 400."""

import gzip

import httpx
import pytest
from google.rpc import status_pb2

from tests.support.bombs import deflate_bomb, gzip_bomb
from tests.support.load import peak_rss_bytes
from tests.support.otlp import logs_request, traces_request
from tests.support.servers import SubprocessServer

LIMIT_MIB = 1024
PROTOBUF = {"content-type": "application/x-protobuf"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = SubprocessServer(tmp_path_factory.mktemp("hostile") / "store", ("--memory-limit-mib", str(LIMIT_MIB))).start()
    yield srv
    srv.stop()


def _stays_under_the_memory_limit(server) -> None:
    peak = peak_rss_bytes(server.process.pid)
    assert peak < LIMIT_MIB << 20, f"peak RSS {peak >> 20} MiB"


@pytest.mark.parametrize("path", ["/v1/traces", "/api/import/otlp"])
def test_a_gzip_bomb_is_refused_at_the_limit(server, path):
    bomb = gzip_bomb(3 << 30)  # 3 MiB that inflate to 3 GiB
    answer = httpx.post(
        f"{server.http_url}{path}", content=bomb, timeout=120, headers={**PROTOBUF, "content-encoding": "gzip"}
    )
    assert answer.status_code == 413
    assert "limit" in answer.text
    _stays_under_the_memory_limit(server)


def test_a_gzip_file_that_is_a_bomb_is_refused_by_the_import(server):
    """The import reads .gz files by their magic bytes, without a Content-Encoding."""
    answer = httpx.post(
        f"{server.http_url}/api/import/otlp", params={"name": "spans.pb.gz"}, content=gzip_bomb(3 << 30), timeout=120
    )
    assert answer.status_code == 413
    assert answer.json()["detail"].startswith("spans.pb.gz: inflates past the")
    _stays_under_the_memory_limit(server)


def test_a_deflate_bomb_is_refused_at_the_limit(server):
    answer = httpx.post(
        f"{server.http_url}/v1/traces",
        content=deflate_bomb(),
        timeout=120,
        headers={**PROTOBUF, "content-encoding": "deflate"},
    )
    assert answer.status_code == 413
    _stays_under_the_memory_limit(server)


def test_the_import_refuses_a_body_over_max_request_bytes(server):
    big = traces_request("too-big", 1)
    big.resource_spans[0].scope_spans[0].spans[0].attributes.add(key="pad").value.string_value = "x" * (24 << 20)
    answer = httpx.post(f"{server.http_url}/api/import/otlp", content=big.SerializeToString(), timeout=120)
    assert answer.status_code == 413
    assert "exceeds the 16777216-byte limit" in answer.json()["detail"]
    stored = httpx.get(f"{server.http_url}/api/ingest", params={"service": "too-big"}).json()["stored"]
    assert stored == []


def test_a_gzip_body_cut_before_its_trailer_is_refused(server):
    body = gzip.compress(traces_request("cut-gzip", 3).SerializeToString())
    for path in ("/v1/traces", "/api/import/otlp"):
        answer = httpx.post(
            f"{server.http_url}{path}", content=body[:-8], headers={**PROTOBUF, "content-encoding": "gzip"}
        )
        assert answer.status_code == 400, (path, answer.text)
        assert "cut short" in answer.text
    stored = httpx.get(f"{server.http_url}/api/ingest", params={"service": "cut-gzip"}).json()["stored"]
    assert stored == []


def _deep_kvlist_logs(depth: int) -> bytes:
    request = logs_request("deep-kvlist", 1)
    value = request.resource_logs[0].scope_logs[0].log_records[0].body
    for _ in range(depth):
        value = value.kvlist_value.values.add(key="k").value
    value.string_value = "leaf"
    return request.SerializeToString()


def test_json_nested_100000_deep_is_refused_with_a_reason(server):
    document = b'{"resourceSpans": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    answer = httpx.post(f"{server.http_url}/v1/traces", content=document, headers={"content-type": "application/json"})
    assert answer.status_code == 400
    assert "nests JSON too deeply" in answer.json()["message"]
    imported = httpx.post(f"{server.http_url}/api/import/otlp", params={"name": "deep.json"}, content=document)
    assert imported.status_code == 400
    assert "deep.json: nests JSON too deeply" in imported.json()["detail"]


def test_a_kvlist_nested_3000_deep_is_refused_with_a_reason(server):
    body = _deep_kvlist_logs(3000)
    answer = httpx.post(f"{server.http_url}/v1/logs", content=body, headers=PROTOBUF)
    assert answer.status_code == 400
    assert "values nest too deeply" in status_pb2.Status.FromString(answer.content).message
    value = '{"kvlistValue": {"values": [{"key": "k", "value": ' * 3000 + '{"stringValue": "leaf"}' + "}]}}" * 3000
    as_json = '{"resourceLogs": [{"scopeLogs": [{"logRecords": [{"body": ' + value + "}]}]}]}"
    answer = httpx.post(f"{server.http_url}/v1/logs", content=as_json, headers={"content-type": "application/json"})
    assert answer.status_code == 400 and answer.json()["message"]
