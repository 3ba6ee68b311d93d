"""A SQL statement waits for what it reads: over the stored records (otel_*, agent_events) for the commits of
what was acknowledged before it; over a table the keeper writes (resolved_events, trial_rows, job_rows) for the
keeper's pass over them too. A client polling the stored records (a dashboard, bench/ingest.py) so never waits
for, nor hurries, a keeper pass, which holds the engine the commits need."""

import threading
from concurrent.futures import ThreadPoolExecutor

import clickhouse_connect
import httpx
import pytest
from clickhouse_driver import Client as NativeClient

from harborlight import app
from harborlight.settings import Settings
from harborlight.summaries import refresh as keeper_module
from tests.support.otlp import traces_request
from tests.support.servers import InProcessServer


@pytest.fixture
def held_keeper(store_dir, monkeypatch):
    """A server whose keeper's next pass waits for `release` (a pass slowed as on a busy machine); reads wait
    for it as long as they need."""
    settings = Settings(data_dir=store_dir, clickhouse_http_port=0, clickhouse_tcp_port=0)  # (one engine a process)
    server = InProcessServer(settings).start()
    server.caught_up()
    entered, release = threading.Event(), threading.Event()
    real = keeper_module.refresh

    def held(*args, **kwargs):
        entered.set()
        release.wait(300)
        return real(*args, **kwargs)

    monkeypatch.setattr(keeper_module, "refresh", held)
    monkeypatch.setattr(app, "KEEPER_WAIT_SECONDS", 300.0)
    yield server, entered, release
    release.set()
    server.stop()


def _count_over_http(server):
    client = clickhouse_connect.get_client(host="127.0.0.1", port=server.run.clickhouse_http_port)
    return lambda sql, table: client.query(sql, parameters={"table": table}).result_rows[0][0], client.close


def _count_over_native(server):
    client = NativeClient("127.0.0.1", port=server.run.clickhouse_tcp_port, settings={"server_side_params": True})
    return lambda sql, table: client.execute(sql, params={"table": table})[0][0], client.disconnect


@pytest.mark.parametrize("connect", [_count_over_http, _count_over_native], ids=["http", "native"])
def test_the_stored_records_answer_while_the_keeper_is_busy_and_its_rows_after(held_keeper, connect, unique):
    server, entered, release = held_keeper
    answer = httpx.post(
        f"{server.http_url}/v1/traces",
        content=traces_request(unique, 4, job=f"job-{unique}").SerializeToString(),
        headers={"content-type": "application/x-protobuf"},
    )
    assert answer.status_code == 200
    assert entered.wait(120), "the commit did not wake the keeper"
    (count, close), sql = connect(server), f"SELECT count() FROM {{table:Identifier}} WHERE ServiceName = '{unique}'"
    with ThreadPoolExecutor(1) as pool:
        stored = pool.submit(count, sql, "agent_events")
        assert stored.result(timeout=120) == 4  # committed, and answered while the keeper's pass is held
        resolved = pool.submit(count, sql, "resolved_events")
        assert not resolved.done() and not release.is_set()
        threading.Event().wait(1)
        assert not resolved.done(), "a statement over the keeper's rows answered before its pass"
        release.set()
        assert resolved.result(timeout=300) == 4
    close()


@pytest.mark.parametrize(
    ("statement", "waits"),
    [
        ("SELECT count() FROM agent_events", False),
        ("SELECT * FROM otel_traces WHERE SpanName = 'x'", False),
        ("SELECT trial, n_events FROM trial_rows FINAL", True),
        ("select * from RESOLVED_EVENTS", True),
        ("SELECT * FROM default.job_rows", True),
    ],
)
def test_a_statement_waits_for_the_keeper_when_it_names_a_table_the_keeper_writes(statement, waits):
    assert keeper_module.reads_derived_rows(statement) is waits


def test_a_table_named_by_an_identifier_parameter_counts():
    assert keeper_module.reads_derived_rows("SELECT count() FROM {t:Identifier}", ["trial_rows"])
    assert not keeper_module.reads_derived_rows("SELECT count() FROM {t:Identifier}", ["agent_events"])
