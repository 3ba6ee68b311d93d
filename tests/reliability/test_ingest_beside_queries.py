"""Slow statements on the SQL interface never hold ingest back: requests are acknowledged while they run.

The attack: any token holder sends six `SELECT sum(sleepEachRow(1)) FROM numbers(...)` (with the sleep cap
lifted in the URL); while they ran, no export request was acknowledged at all."""

import contextlib
import os
import threading
import time

import httpx
import pytest

from harborlight.settings import Settings
from harborlight.sqlport.sql_threads import SQL_THREADS
from harborlight.store.client import COMMIT_PRIORITY
from tests.support.otlp import traces_request
from tests.support.servers import InProcessServer

SLOW = "SELECT sum(sleepEachRow(1)) FROM numbers(3600)"
RUNNING = "SELECT count() FROM system.processes WHERE query LIKE '%sleepEachRow%' AND query NOT LIKE '%processes%'"


@pytest.fixture(scope="module")
def with_sql_port(store_dir):
    srv = InProcessServer(Settings(data_dir=store_dir, clickhouse_http_port=0)).start()
    yield srv
    srv.stop()


def test_export_requests_are_acknowledged_while_slow_statements_hold_every_sql_thread(with_sql_port, unique):
    server = with_sql_port
    url = f"http://127.0.0.1:{server.run.clickhouse_http_port}/"
    params = {"function_sleep_max_microseconds_per_block": "0", "max_block_size": "1"}

    def slow() -> None:
        with contextlib.suppress(httpx.HTTPError):  # cancelled at the end of the test
            httpx.post(url, params=params, content=SLOW, timeout=600)

    statements = [threading.Thread(target=slow) for _ in range(SQL_THREADS + 2)]  # more than there are threads
    for t in statements:
        t.start()
    try:
        deadline = time.monotonic() + 60
        while server.sql(RUNNING)[0][0] < SQL_THREADS:
            assert time.monotonic() < deadline, "the slow statements never started"
            time.sleep(0.1)
        for i in range(3):
            answer = httpx.post(
                f"{server.http_url}/v1/traces",
                timeout=60,
                content=traces_request(unique, 5, job=f"{unique}-{i}").SerializeToString(),
                headers={"content-type": "application/x-protobuf"},
            )
            assert answer.status_code == 200, answer.text
        assert server.sql(RUNNING)[0][0] >= SQL_THREADS, "the statements ended before ingest was tried"
        stored = server.sql("SELECT count() FROM otel_traces WHERE ServiceName = {s:String}", s=unique)[0][0]
        assert stored == 15
    finally:
        while any(t.is_alive() for t in statements):  # those that waited for a thread start as others end
            server.store.client.command(
                "KILL QUERY WHERE query LIKE '%sleepEachRow%' AND query NOT LIKE '%processes%' SYNC"
            )
            statements[-1].join(0.5)


def test_statements_run_below_the_commits_and_cannot_climb_above_them(with_sql_port):
    """The engine's `priority`: a statement pauses while a query of a smaller number runs, and the writer commits
    at harborlight.store.client.COMMIT_PRIORITY; a CPU-heavy statement at the same level took the cores the
    commits needed."""
    url = f"http://127.0.0.1:{with_sql_port.run.clickhouse_http_port}/"
    ran = httpx.post(
        url,
        content="SELECT getSetting('priority'), getSetting('max_threads'), getSetting('os_thread_priority')",
        timeout=60,
    )
    assert ran.status_code == 200, ran.text
    priority, threads, nice = ran.text.split()
    assert int(priority) > COMMIT_PRIORITY and int(threads) <= max(1, (os.cpu_count() or 2) // 2)  # half the cores
    # below the commits within the engine, not below the machine: at nice 19 a statement beside two busy processes
    # took 70x its time alone (bench/reads_beside_busy_processes.py), and Grafana's panels timed out with it
    assert nice == "0"
    lower = httpx.post(url, params={"priority": "9"}, content="SELECT getSetting('priority')", timeout=60)
    assert lower.status_code == 200 and lower.text.strip() == "9"  # a caller may step further back
    for params, sql, message in (
        ({"priority": "0"}, "SELECT 1", "Setting priority shouldn't be less than 2"),  # 0 takes no part
        ({}, "SELECT 1 SETTINGS priority = 1", "Setting priority shouldn't be less than 2"),
        ({"max_threads": "64"}, "SELECT 1", "Setting max_threads shouldn't be greater than"),
        ({"os_thread_priority": "-20"}, "SELECT 1", "Setting os_thread_priority shouldn't be less than"),
    ):
        refused = httpx.post(url, params=params, content=sql, timeout=60)
        assert refused.status_code == 500 and "Code: 452" in refused.text and message in refused.text, refused.text
