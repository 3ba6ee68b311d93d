"""The rule table's two compilations agree: the agent_events views (harborlight/agent/compile.py) and the Arrow
compute (harborlight/agent/arrow_compile.py), over every recorded real-agent and framework fixture, give the same
agent events, column for column."""

import uuid
from collections import Counter
from pathlib import Path

import pytest

from harborlight.agent import arrow_compile
from harborlight.agent.arrow_compile import UnsupportedRule, classify, raw_select
from harborlight.agent.sources import CONTEXTS
from harborlight.commit.otlp_insert import insert_requests
from harborlight.store.client import open_client
from harborlight.store.schema import ensure_schema
from harborlight.transfer.otlp_files import read_chunks

_ROOT = Path(__file__).resolve().parents[1]
FIXTURES = sorted((_ROOT / "real_agents" / "fixtures").glob("*.jsonl")) + sorted(
    (_ROOT / "frameworks" / "fixtures").glob("*.jsonl")
)


TENANT = f"drift-{uuid.uuid4().hex[:12]}"  # the fixtures' rows here, apart from other tests' in the session store


@pytest.fixture(scope="module")
def store(store_dir):
    """The session store holding every fixture once more, under a tenant of this module's own."""
    store = open_client(store_dir)
    ensure_schema(store.client)
    for path in FIXTURES:
        requests: dict = {}
        for chunk in read_chunks(path.name, path.read_bytes()):
            requests.setdefault(chunk.signal, []).append(chunk.body)
        for signal, bodies in requests.items():
            insert_requests(store, signal, bodies, tenant=TENANT)
    return store


def _rows(client, table: str, columns: list[str]) -> dict[str, tuple]:
    sql = f"SELECT {', '.join(columns)} FROM {table} WHERE Tenant = {{tenant:String}}"
    return {r[0]: r for r in client.query(sql, parameters={"tenant": TENANT}).result_rows}


def test_both_compilations_give_the_same_agent_events(store):
    """The views installed by the schema (the rule table compiled to SQL; tests/agent/test_agent_sql.py keeps
    them the compiler's output) against the Arrow compilation over the same raw rows."""
    client = store.client
    mine = f"agent_events_{TENANT.replace('-', '_')}"
    client.command(f"CREATE TABLE {mine} AS agent_events")
    try:
        raw_rows = 0
        for ctx in CONTEXTS:
            raw = client.query_arrow(
                f"SELECT {raw_select(ctx.source)} FROM {ctx.table} "
                "WHERE ResourceAttributes['harborlight.tenant'] = {tenant:String}",
                parameters={"tenant": TENANT},
            )
            raw_rows += raw.num_rows
            client.insert_arrow(mine, classify(raw, ctx.source))
        columns = ["EventId"] + [r[0] for r in client.query("DESCRIBE agent_events").result_rows if r[0] != "EventId"]
        views, arrow = _rows(client, "agent_events", columns), _rows(client, mine, columns)
    finally:
        client.command(f"DROP TABLE IF EXISTS {mine}")
    assert raw_rows > 10_000 and len(views) > 10_000, "the fixtures were stored"
    assert sorted(views.keys() - arrow.keys())[:5] == [], "events only the views give"
    assert sorted(arrow.keys() - views.keys())[:5] == [], "events only the Arrow compute gives"
    differ: Counter[str] = Counter()
    example: dict[str, tuple] = {}
    for event_id, row in views.items():
        for column, theirs, ours in zip(columns, row, arrow[event_id], strict=True):
            if theirs != ours:
                differ[column] += 1
                example.setdefault(column, (event_id, theirs, ours))
    assert not differ, f"columns that differ (count): {dict(differ)}; first of each (views, arrow): {example}"


def test_an_empty_batch_gives_no_events(store):
    for ctx in CONTEXTS:
        empty = store.client.query_arrow(f"SELECT {raw_select(ctx.source)} FROM {ctx.table} LIMIT 0")
        assert classify(empty, ctx.source).num_rows == 0


def test_a_rule_type_it_does_not_know_fails_by_name(store, monkeypatch):
    """A When field it has no counterpart for (a new kind of test in the rule table) is refused, not skipped."""
    monkeypatch.setattr(arrow_compile, "_HANDLED_WHEN", arrow_compile._HANDLED_WHEN - {"scope"})
    raw = store.client.query_arrow(f"SELECT {raw_select('span')} FROM otel_traces LIMIT 3")
    with pytest.raises(UnsupportedRule, match="scope"):
        classify(raw, "span")
