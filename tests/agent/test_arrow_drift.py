"""The rule table's two compilations agree: the agent_events views (harborlight/agent/compile.py) and the Arrow
compute (harborlight/agent/arrow_compile.py), over every recorded real-agent and framework fixture, give the same
agent events, column for column."""

from collections import Counter
from pathlib import Path

import pytest

from harborlight.agent import arrow_compile
from harborlight.agent.arrow_compile import UnsupportedRule, classify, raw_select
from harborlight.agent.compile import view_sql
from harborlight.agent.sources import CONTEXTS
from harborlight.store import insert_requests
from harborlight.store.client import open_client
from harborlight.store.schema import ensure_schema
from harborlight.transfer.otlp_files import read_chunks

_ROOT = Path(__file__).resolve().parents[1]
FIXTURES = sorted((_ROOT / "real_agents" / "fixtures").glob("*.jsonl")) + sorted(
    (_ROOT / "frameworks" / "fixtures").glob("*.jsonl")
)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A store holding every fixture, classified by views compiled from the rule table as it is now."""
    store = open_client(tmp_path_factory.mktemp("drift"))
    ensure_schema(store.client)
    for ctx in CONTEXTS:
        store.client.command(f"DROP VIEW IF EXISTS {ctx.mv}")
        store.client.command(view_sql(ctx))
    for path in FIXTURES:
        requests: dict = {}
        for chunk in read_chunks(path.name, path.read_bytes()):
            requests.setdefault(chunk.signal, []).append(chunk.body)
        for signal, bodies in requests.items():
            insert_requests(store, signal, bodies)
    yield store
    store.client.close()


def _rows(client, table: str, columns: list[str]) -> dict[str, tuple]:
    return {r[0]: r for r in client.query(f"SELECT {', '.join(columns)} FROM {table}").result_rows}


def test_both_compilations_give_the_same_agent_events(store):
    client = store.client
    client.command("CREATE TABLE agent_events_arrow AS agent_events")
    raw_rows = 0
    for ctx in CONTEXTS:
        raw = client.query_arrow(f"SELECT {raw_select(ctx.source)} FROM {ctx.table}")
        raw_rows += raw.num_rows
        client.insert_arrow("agent_events_arrow", classify(raw, ctx.source))
    columns = ["EventId"] + [r[0] for r in client.query("DESCRIBE agent_events").result_rows if r[0] != "EventId"]
    views, arrow = _rows(client, "agent_events", columns), _rows(client, "agent_events_arrow", columns)
    assert raw_rows > 10_000 and len(views) > 10_000, "the fixtures were stored"
    assert sorted(views.keys() - arrow.keys())[:5] == [], "events only the views give"
    assert sorted(arrow.keys() - views.keys())[:5] == [], "events only the Arrow compute gives"
    differ: Counter[str] = Counter()
    example: dict[str, tuple] = {}
    for event_id, row in views.items():
        for column, mine, theirs in zip(columns, row, arrow[event_id], strict=True):
            if mine != theirs:
                differ[column] += 1
                example.setdefault(column, (event_id, mine, theirs))
    assert not differ, f"columns that differ (count): {dict(differ)}; first of each: {example}"


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
