"""A request the store refuses alone, while it takes other writes, is set aside (counted, shown on
/api/ingest); `harborlight wal replay-rejected` puts it back in the log once the cause is fixed, and the next
start stores it, once: replayed twice, it is skipped by its digest."""

import shutil
import time

import httpx

from harborlight.cli.main import main
from harborlight.settings import Settings
from tests.support.otlp import traces_request
from tests.support.servers import InProcessServer

N_SPANS = 7


def _post(server: InProcessServer, body: bytes) -> None:
    answer = httpx.post(
        f"{server.http_url}/v1/traces", content=body, timeout=60, headers={"content-type": "application/x-protobuf"}
    )
    assert answer.status_code == 200, answer.text


def _stored(server: InProcessServer, service: str) -> tuple[int, int]:
    return server.sql("SELECT count(), uniqExact(SpanId) FROM otel_traces WHERE ServiceName = {s:String}", s=service)[0]


def test_a_set_aside_request_is_replayed_through_the_log_and_stored_once(store_dir, tmp_path, unique, capsys):
    wal_dir = tmp_path / "wal"
    settings = Settings(data_dir=store_dir, wal_dir=wal_dir)
    server = InProcessServer(settings).start()
    client = server.run.store.client
    sink, view = f"refuse_sink_{unique}", f"refuse_view_{unique}"
    client.command(f"CREATE TABLE {sink} (x UInt8) ENGINE = Null")
    client.command(
        f"CREATE MATERIALIZED VIEW {view} TO {sink} AS SELECT throwIf(ServiceName = '{unique}', "
        "'refused by a view') AS x FROM otel_traces"
    )
    try:
        _post(server, traces_request(unique, N_SPANS).SerializeToString())
        _post(server, traces_request(f"{unique}-other", 3).SerializeToString())
        deadline = time.monotonic() + 120
        while server.run.writer.stats.set_aside_requests == 0:
            assert time.monotonic() < deadline, "the refused request was never set aside"
            time.sleep(0.05)
        server.caught_up()
        report = httpx.get(f"{server.http_url}/api/ingest", timeout=60).json()
        assert report["writer"]["set_aside_requests"] == 1 and report["log"]["rejected_requests"] == 1
        assert _stored(server, f"{unique}-other") == (3, 3)  # its raw rows may be in: written before the view
    finally:
        client.command(f"DROP VIEW IF EXISTS {view}")
        client.command(f"DROP TABLE IF EXISTS {sink}")
        server.stop()

    # The cause fixed (the view dropped), the server stopped: the set-aside request goes back in the log.
    assert main(["wal", "replay-rejected", "--wal-dir", str(wal_dir), "--list"]) == 0
    assert f"{N_SPANS} items" in capsys.readouterr().out
    assert main(["wal", "replay-rejected", "--wal-dir", str(wal_dir)]) == 0
    assert "1 set-aside request(s)" in capsys.readouterr().out
    assert len(list((wal_dir / "rejected" / "replayed").glob("*.wal"))) == 1
    assert list((wal_dir / "rejected").glob("*.wal")) == []

    server = InProcessServer(settings).start()
    try:
        assert _stored(server, unique) == (N_SPANS, N_SPANS)
    finally:
        server.stop()

    for kept in (wal_dir / "rejected" / "replayed").iterdir():  # replayed a second time: stored once still
        shutil.copy(kept, wal_dir / "rejected" / kept.name)
    assert main(["wal", "replay-rejected", "--wal-dir", str(wal_dir)]) == 0
    server = InProcessServer(settings).start()
    try:
        assert _stored(server, unique) == (N_SPANS, N_SPANS)
        assert server.run.writer.stats.set_aside_requests == 0
    finally:
        server.stop()


def test_replay_refuses_while_a_server_holds_the_log(tmp_path, capsys):
    from harborlight.wal import FsyncPolicy, WriteAheadLog

    (tmp_path / "rejected").mkdir(parents=True)
    with WriteAheadLog(tmp_path, FsyncPolicy.parse("never"), 1 << 20) as log:
        log.set_aside(_entry(log), "refused")
        assert main(["wal", "replay-rejected", "--wal-dir", str(tmp_path)]) == 1
        assert "in use" in capsys.readouterr().err
    assert main(["wal", "replay-rejected", "--wal-dir", str(tmp_path)]) == 0


def _entry(log):
    from harborlight.store import Signal
    from harborlight.wal import Record

    log.append(Record(Signal.traces, None, bytes(16), 1, b"\x0a\x00"))
    return log.take(10, 10**9)[0]
