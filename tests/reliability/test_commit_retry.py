"""A commit that fails after some of its tables were written is retried without storing anything twice."""

import time
from concurrent.futures import ThreadPoolExecutor

import httpx

from tests.support.otlp import traces_request

N_SPANS = 40


def test_a_commit_failing_in_a_view_is_retried_and_every_table_holds_each_span_once(server, unique):
    """otel_traces is written before its views run: a view failing fails the commit after the raw
    rows are in. The committer retries the same batch under the same token; every table must end up with
    each span exactly once (raw rows not doubled, agent events not lost)."""
    client = server.store.client
    switch, sink, view = f"fault_switch_{unique}", f"fault_sink_{unique}", f"fault_view_{unique}"
    client.command(f"CREATE TABLE {switch} (on UInt8) ENGINE = Memory")
    client.command(f"INSERT INTO {switch} VALUES (1)")
    client.command(f"CREATE TABLE {sink} (x UInt8) ENGINE = Null")
    client.command(
        f"CREATE MATERIALIZED VIEW {view} TO {sink} AS SELECT throwIf(ServiceName = '{unique}' "
        f"AND (SELECT max(on) FROM {switch}) = 1, 'injected fault') AS x FROM otel_traces"
    )
    writer = server.run.writer
    retried_before = writer.stats.retried_commits
    try:
        with ThreadPoolExecutor(1) as pool:
            answer = pool.submit(
                httpx.post,
                f"{server.http_url}/v1/traces",
                content=traces_request(unique, N_SPANS).SerializeToString(),
                headers={"content-type": "application/x-protobuf"},
                timeout=60,
            )
            deadline = time.monotonic() + 30
            while writer.stats.retried_commits == retried_before:  # the first attempt has failed
                assert time.monotonic() < deadline, "the injected fault never failed a commit"
                time.sleep(0.002)
            # Read without waiting for the committer (server.sql would: it is still retrying).
            raw_so_far = client.query(
                "SELECT count() FROM otel_traces WHERE ServiceName = {s:String}", parameters={"s": unique}
            ).result_rows[0][0]
            assert raw_so_far == N_SPANS
            client.command(f"TRUNCATE TABLE {switch}")  # the fault clears before the retry
            assert answer.result().status_code == 200
    finally:
        client.command(f"DROP VIEW IF EXISTS {view}")
        client.command(f"DROP TABLE IF EXISTS {sink}")
        client.command(f"DROP TABLE IF EXISTS {switch}")

    raw = server.sql("SELECT count(), uniqExact(SpanId) FROM otel_traces WHERE ServiceName = {s:String}", s=unique)[0]
    events = server.sql("SELECT count(), uniqExact(SpanId) FROM agent_events WHERE ServiceName = {s:String}", s=unique)[
        0
    ]
    assert raw == (N_SPANS, N_SPANS)
    assert events == (N_SPANS, N_SPANS)
