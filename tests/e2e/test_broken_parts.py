"""A damaged part is said out loud: the engine moves it to detached/broken-on-start_* when the store opens and its
rows answer no query; /healthz says degraded, /api/ingest names the part and counts its rows, and the log names it.

The attack: a part's data file damaged while the server was down (100 of 500 spans vanished), and nothing in
/healthz, /api/ingest or the log said so. The damage is done to a real store on disk, as a failing disk or a
copy cut short would leave it, and the engine itself decides the part is broken."""

import time
from pathlib import Path

import httpx

from tests.support.otlp import logs_request, traces_request
from tests.support.servers import SubprocessServer, free_port

SERVICE = "broken-parts"


def _sql(port: int, statement: str) -> list[list[str]]:
    answer = httpx.post(f"http://127.0.0.1:{port}/", content=f"{statement} FORMAT TabSeparated", timeout=60)
    assert answer.status_code == 200, answer.text
    return [line.split("\t") for line in answer.text.splitlines()]


def _send(server: SubprocessServer, path: str, body: bytes) -> None:
    answer = httpx.post(
        f"{server.http_url}{path}", content=body, timeout=60, headers={"content-type": "application/x-protobuf"}
    )
    assert answer.status_code == 200, answer.text


def test_a_part_damaged_while_down_is_reported_by_health_ingest_and_the_log(tmp_path):
    sql_port = free_port()
    server = SubprocessServer(tmp_path / "store", ("--clickhouse-http-port", str(sql_port))).start()
    _send(server, "/v1/traces", traces_request(SERVICE, 100, job="broken", start=time.time_ns()).SerializeToString())
    _send(server, "/v1/logs", logs_request(SERVICE, 40).SerializeToString())
    parts = _sql(sql_port, "SELECT name, path, rows FROM system.parts WHERE table = 'otel_traces' AND active")
    assert len(parts) == 1  # one commit: one part, which no merge replaces
    ((name, path, rows),) = parts
    assert httpx.get(f"{server.http_url}/healthz", timeout=30).json()["status"] == "ok"
    assert server.stop() == 0

    data = Path(path) / "data.bin"
    data.write_bytes(data.read_bytes()[:100])  # cut short
    server.start()
    try:
        assert _sql(sql_port, "SELECT count() FROM otel_traces") == [["0"]]  # its rows answer no query
        assert _sql(sql_port, "SELECT count() FROM otel_logs") == [["40"]]

        health = httpx.get(f"{server.http_url}/healthz", timeout=30)
        assert health.status_code == 200  # still serving: ingest and queries work
        assert health.json()["status"] == "degraded" and health.json()["broken_parts"] == 1

        ingest = httpx.get(f"{server.http_url}/api/ingest", timeout=30).json()
        assert ingest["broken_parts"] == {
            "parts": [
                {
                    "table": "default.otel_traces",
                    "name": f"broken-on-start_{name}",
                    "reason": "broken-on-start",
                    "rows": int(rows),
                }
            ],
            "rows": int(rows),
        }
        _send(server, "/v1/traces", traces_request(SERVICE, 5, job="after", start=time.time_ns()).SerializeToString())
        assert _sql(sql_port, "SELECT count() FROM otel_traces") == [["5"]]
    finally:
        assert server.stop() == 0
    said = server.output
    assert f"default.otel_traces broken-on-start_{name} ({rows} rows)" in said, said[-2000:]
    assert f"1 damaged part(s) set aside by the engine: {rows} rows no query answers" in said
