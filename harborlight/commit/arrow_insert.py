"""Writes a group of OTLP trace or log export requests with the agent classification done in Arrow, not by the
agent_events views: the engine decodes the requests into the raw rows (the SELECT of ingest_sql's INSERT, read
back as Arrow), harborlight/agent/arrow_compile.py classifies them on the calling thread (the committer's, off
the event loop), and the raw rows and the agent rows are two plain Arrow inserts under the group's token.

It is for a store without the agent_events views (else every span would be classified twice); metrics have no
agent rows and go the engine's way (harborlight/commit/otlp_insert.py).
"""

import os
import tempfile

from harborlight.agent.arrow_compile import LOG_EVENT_ID, classify
from harborlight.agent.rule_types import Source
from harborlight.agent.sources import log_event_id_sql
from harborlight.commit import ingest_sql
from harborlight.commit.ingest_sql import DECODING
from harborlight.commit.otlp_insert import _framed, _settings, insert_requests, needs_nested_decoding
from harborlight.commit.structured_values import with_structured_values_as_text
from harborlight.sql_text import literal
from harborlight.store.client import Store
from harborlight.store.signal import Signal

_SOURCES: dict[Signal, tuple[Source, str]] = {Signal.traces: ("span", "otel_traces"), Signal.logs: ("log", "otel_logs")}


def _split_top_level(text: str) -> list[str]:
    """`text` split at the commas outside brackets and quotes."""
    parts, depth, quote, start, i = [], 0, "", 0, 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'`\"":
            quote = c
        elif c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


def decode_select(signal: Signal, source: str, tenant: str | None) -> tuple[str, list[str]]:
    """The SELECT of the signal's INSERT with each value named after its column (a log row also with its
    EventId), and the raw table's columns."""
    insert = (ingest_sql.traces_insert if signal is Signal.traces else ingest_sql.logs_insert)(source, tenant, DECODING)
    head, rest = insert.split("(", 1)
    columns_text, select = rest.split(")\nSELECT\n", 1)
    columns = [c.strip().strip("`") for c in columns_text.split(",")]
    values_text, tail = select.split("\nFROM ", 1)
    values = _split_top_level(values_text)
    assert len(values) == len(columns), f"{head.strip()}: {len(values)} values for {len(columns)} columns"
    named = ",\n    ".join(f"{v} AS `{c}`" for v, c in zip(values, columns, strict=True))
    query = f"SELECT\n    {named}\nFROM {tail}"
    if signal is Signal.logs:
        query = f"SELECT *, {log_event_id_sql()} AS {LOG_EVENT_ID} FROM ({query})"
    return query, columns


# The raw columns the Arrow compilation reads (a narrower decode, where the engine writes the raw rows itself).
CLASSIFIED_COLUMNS: dict[Source, tuple[str, ...]] = {
    "span": (
        "Timestamp", "TraceId", "SpanId", "ParentSpanId", "SpanName", "ServiceName", "ResourceAttributes",
        "ScopeName", "SpanAttributes", "Duration", "StatusCode", "StatusMessage", "Events.Name", "Events.Attributes",
    ),
    "log": (
        "Timestamp", "TraceId", "SpanId", "ServiceName", "Body", "ResourceAttributes", "ScopeName", "LogAttributes",
        "EventName", LOG_EVENT_ID,
    ),
}  # fmt: skip


def insert_requests_classified(
    store: Store,
    signal: Signal,
    requests: list[bytes],
    tenant: str | None = None,
    nested: bool | None = None,
    retry_token: str | None = None,
    raw_by_engine: bool = False,
) -> None:
    """As otlp_insert.insert_requests, with the agent rows written beside the raw rows (no view needed).
    `raw_by_engine`: the engine writes the raw rows straight from the requests (its INSERT ... SELECT, as
    without the views) and decodes them a second time, only the columns the classification reads, into Arrow;
    else the raw rows decoded once come back as Arrow and go in as an Arrow insert."""
    if signal not in _SOURCES or not requests:
        insert_requests(store, signal, requests, tenant, nested, retry_token)
        return
    kind, table = _SOURCES[signal]
    if nested is None or nested:
        requests = [
            with_structured_values_as_text(signal, r) if needs_nested_decoding(signal, r) else r for r in requests
        ]
    settings = _settings(signal, DECODING, store.embedded)
    write = {"async_insert": "0", "max_partitions_per_insert_block": "0", "priority": settings["priority"]}
    if retry_token:
        write["insert_deduplication_token"] = f"{retry_token}:{signal.value}:{tenant or ''}"
        write["deduplicate_blocks_in_dependent_materialized_views"] = "1"
    structure = literal(_structure(signal))
    if not store.embedded:
        raise NotImplementedError("server mode: the decoded rows would be read back with the request body")
    assert store.spool_dir is not None
    fd, path = tempfile.mkstemp(dir=store.spool_dir, suffix=".pb")
    try:
        with os.fdopen(fd, "wb") as f:
            f.writelines(_framed(requests))
        source = f"file({literal(path)}, 'Protobuf', {structure})"
        query, _ = decode_select(signal, source, tenant)
        read = {k: v for k, v in settings.items() if k.startswith("format_schema")}
        if raw_by_engine:
            insert = (ingest_sql.traces_insert if signal is Signal.traces else ingest_sql.logs_insert)(
                source, tenant, DECODING
            )
            inline = ", ".join(f"{k} = {literal(v)}" for k, v in {**settings, **write}.items())
            store.client.command(f"{insert} SETTINGS {inline}")
            wanted = ", ".join(f"`{c}`" for c in CLASSIFIED_COLUMNS[kind])
            query = f"SELECT {wanted} FROM ({query})"
        raw = store.client.query_arrow(query, settings=read)
    finally:
        os.unlink(path)
    agent_rows = classify(raw, kind)
    if not raw_by_engine:
        raw_columns = [c for c in raw.column_names if c != LOG_EVENT_ID]
        store.client.insert_arrow(table, raw.select(raw_columns), settings=write)
    # The raw rows first: a commit that dies between the two is replayed under the same token, the raw rows
    # skipped as already there and the agent rows written then.
    store.client.insert_arrow("agent_events", agent_rows, settings=write)


def _structure(signal: Signal) -> str:
    return DECODING.traces_structure if signal is Signal.traces else DECODING.logs_structure
