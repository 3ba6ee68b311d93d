"""The Arrow inserter's read of a commit (harborlight/commit/arrow_insert.py): the engine's decode of the requests,
named column by column, gives the rows the store's own INSERT writes, and the Arrow compilation over them the
agent events the views write. On the session store, under a tenant of this module's own (its views stay)."""

import os
import tempfile
import uuid
from pathlib import Path

import pytest

from harborlight.agent.arrow_compile import classify
from harborlight.commit.arrow_insert import _structure, decode_select
from harborlight.commit.ingest_sql import DECODING
from harborlight.commit.otlp_insert import _framed, _settings, insert_requests
from harborlight.sql_text import literal
from harborlight.store import Signal, ensure_schema, open_client
from harborlight.transfer.otlp_files import read_chunks

_FIXTURES = Path(__file__).resolve().parents[1] / "real_agents" / "fixtures"
TENANT = f"decode-{uuid.uuid4().hex[:12]}"


@pytest.fixture(scope="module")
def stored(store_dir):
    store = open_client(store_dir)
    ensure_schema(store.client)
    requests: dict[Signal, list[bytes]] = {}
    for name in ("claude-code-2.1.197-three-turn-http-logs.jsonl", "codex-0.171.0-edit-grpc.jsonl"):
        path = _FIXTURES / name
        for chunk in read_chunks(path.name, path.read_bytes()):
            requests.setdefault(chunk.signal, []).append(chunk.body)
    for signal in (Signal.traces, Signal.logs):
        insert_requests(store, signal, requests[signal], tenant=TENANT)
    return store, requests


def _decoded(store, signal: Signal, requests: list[bytes]):
    settings = _settings(signal, DECODING, True)
    fd, path = tempfile.mkstemp(dir=store.spool_dir, suffix=".pb")
    try:
        with os.fdopen(fd, "wb") as f:
            f.writelines(_framed(requests))
        source = f"file({literal(path)}, 'Protobuf', {literal(_structure(signal))})"
        query, columns = decode_select(signal, source, TENANT)
        read = {k: v for k, v in settings.items() if k.startswith("format_schema")}
        return store.client.query_arrow(query, settings=read), columns
    finally:
        os.unlink(path)


@pytest.mark.parametrize(
    ("signal", "table", "source"), [(Signal.traces, "otel_traces", "span"), (Signal.logs, "otel_logs", "log")]
)
def test_the_decoded_rows_are_the_stored_rows_and_classify_as_the_views_do(stored, signal, table, source):
    store, requests = stored
    client = store.client
    decoded, columns = _decoded(store, signal, requests[signal])
    assert decoded.column_names[: len(columns)] == columns
    mine = f"{table}_{TENANT.replace('-', '_')}"
    events = f"agent_events_{TENANT.replace('-', '_')}"
    client.command(f"CREATE TABLE {mine} AS {table}")
    client.command(f"CREATE TABLE {events} AS agent_events")
    try:
        client.insert_arrow(mine, decoded.select(columns))
        client.insert_arrow(events, classify(decoded, source))
        listed = ", ".join(f"`{c}`" for c in columns)
        tenant = "ResourceAttributes['harborlight.tenant'] = {tenant:String}"

        def rows(sql: str) -> list[tuple]:
            return sorted(client.query(sql, parameters={"tenant": TENANT}).result_rows, key=repr)

        assert rows(f"SELECT {listed} FROM {mine}") == rows(f"SELECT {listed} FROM {table} WHERE {tenant}")
        agent_columns = ", ".join(r[0] for r in client.query("DESCRIBE agent_events").result_rows)
        theirs = rows(
            f"SELECT {agent_columns} FROM agent_events WHERE Tenant = {{tenant:String}} AND SourceTable = '{table}'"
        )
        assert theirs and rows(f"SELECT {agent_columns} FROM {events}") == theirs
    finally:
        client.command(f"DROP TABLE IF EXISTS {mine}")
        client.command(f"DROP TABLE IF EXISTS {events}")
