"""Brings a store of one engine to the schema's plain form (harborlight/store/schema_ddl.py), idempotently, and records
the schema version; a view made from an older rule table is made again and its stored rows derived again."""

import logging
import re
from itertools import groupby

from clickhouse_connect.driver.client import Client

from harborlight.store.schema_ddl import (
    NAMES_FILL,
    NAMES_VERSION,
    REBUILT,
    SCHEMA_VERSION,
    TENANT_PARTS_VERSION,
    TRACE_INDEX_FILL,
    VERSION_TABLE,
    Statement,
    comment_of,
    plain_schema,
    statement,
    view_comment,
    without_comment,
)
from harborlight.store.schema_rebuild import rebuild

__all__ = ["SCHEMA_VERSION", "ensure_schema", "statement", "view_comment"]

log = logging.getLogger(__name__)

_ARRIVALS_VERSION = 5
_NAMES_VIEW = "agent_names_mv"


def _current_comment(client: Client, name: str) -> str | None:
    rows = client.query(
        "SELECT comment FROM system.tables WHERE database = currentDatabase() AND name = {n:String}",
        parameters={"n": name},
    ).result_rows
    return rows[0][0] if rows else None


def _ensure_view(client: Client, view: Statement) -> bool:
    """Creates the materialized view, or drops and creates it again when the store's was created from
    another statement (an older rule table): IF NOT EXISTS alone would keep the old one forever.
    Returns whether stored agent events were derived again.
    An agent view's stored rows are derived again first, and the view is swapped last: a start
    interrupted in between finds the old view still there and does it all again."""
    current = _current_comment(client, view.name)
    if current == comment_of(view.sql):
        return False
    source = agent_view_source(view.sql)
    reclassified = current is not None and source is not None
    if reclassified:
        _reclassify(client, source, without_comment(view.sql))
    if current is not None and view.name == _NAMES_VIEW:
        _name_again(client, fresh=False)  # by the new statement, before the view is swapped
    client.command(f"DROP VIEW IF EXISTS {view.name}")
    client.command(view.sql)
    return reclassified


# An agent view writes its raw table's name as each event's SourceTable: by it the events the view derived are found.
_SOURCE_TABLE = re.compile(r"'(\w+)' AS SourceTable\b")


def agent_view_source(sql: str) -> str | None:
    """The raw table whose agent events the view of `sql` derives, or None for a view into another table."""
    if " TO agent_events AS" not in sql:
        return None
    if source := _SOURCE_TABLE.search(sql):
        return source[1]
    raise ValueError("an agent view names no SourceTable: its stored events could not be derived again")


def _reclassify(client: Client, table: str, sql: str) -> None:
    """The agent events an older rule table derived from raw `table` are derived again by the new view's
    query, so old data reads as new data does (this runs on start, before ingest does).
    Deleting and inserting again is idempotent, so a start that dies half-way can simply repeat it."""
    # No early return on zero stored rows: a start that died after the DELETE left exactly that.
    stale = client.command("SELECT count() FROM agent_events WHERE SourceTable = {t:String}", parameters={"t": table})
    log.warning("the agent rules changed: deriving the agent events of %s again (%d stored)", table, stale)
    # The names of the events deleted stay in agent_names: they are taken again after, also when this start dies.
    client.command(f"DELETE FROM {VERSION_TABLE} WHERE Version = {NAMES_VERSION}")
    client.command("DELETE FROM agent_events WHERE SourceTable = {t:String}", parameters={"t": table})
    select = sql.split(" TO agent_events AS", 1)[1]
    columns = [row[0] for row in client.query(f"DESCRIBE ({select})").result_rows]  # a view matches them by name
    # A repeated attempt writes the same blocks again: they are not retries to skip.
    client.command(f"INSERT INTO agent_events ({', '.join(columns)}) {select}", settings={"insert_deduplicate": 0})


def _count_arrivals(client: Client, fresh: bool) -> None:
    """trial_arrivals counted again from the stored agent events, and every trial's row marked for deriving
    again: for a store from before trial summaries, and after agent events were derived again (their
    DELETE and INSERT moved the counts). It runs on start, before ingest does, and repeats whole after a
    start that died half-way (the version is recorded after it)."""
    if not fresh:  # a new store has no rows to count: nothing to say
        log.warning("counting the stored agent events per trial: every trial's row will be derived again")
    client.command("TRUNCATE TABLE trial_arrivals")
    client.command("TRUNCATE TABLE trial_summarized")
    select = statement("trial_arrivals_mv").split(" AS\n", 1)[1]
    client.command(f"INSERT INTO trial_arrivals {select}", settings={"insert_deduplicate": 0})


def _name_again(client: Client, fresh: bool) -> None:
    """agent_names taken again from the stored agent events, as its view writes them: for a store from before
    the names table, after agent events were derived again (their DELETE left their names), and when the
    naming rule changed. It runs on start, before ingest does, and repeats whole after a start that died
    half-way (the version is recorded after it, the view swapped after it)."""
    if not fresh:
        log.warning(
            "taking the names of the stored agent events (who names the records named after a trace or session)"
        )
    client.command("TRUNCATE TABLE agent_names")
    client.command(NAMES_FILL, settings={"insert_deduplicate": 0})


def _tenant_parts_made(client: Client, views: list[Statement], fresh: bool) -> None:
    """After the tables with a tenant were made again with the tenant leading their partition keys: each view
    made again (this engine's views follow their tables by name across EXCHANGE TABLES, not every ClickHouse
    version's do), and the trace-id index derived again from the stored spans, each row with its tenant. It runs
    on start, before ingest does, and repeats whole after a start that died half-way (the version is recorded
    after it)."""
    for view in views:
        client.command(f"DROP VIEW IF EXISTS {view.name}")
        client.command(view.sql)
    if not fresh:
        log.warning("deriving the trace-id index again from the stored spans, each row with its tenant")
    client.command("TRUNCATE TABLE otel_traces_trace_id_ts")
    client.command(TRACE_INDEX_FILL, settings={"insert_deduplicate": 0})


def _needs_setting(client: Client, setting: Statement) -> bool:
    """Whether a plain MergeTree table lacks the setting (ALTER would rewrite its metadata on every start;
    a Replicated or Distributed table has no such setting)."""
    rows = client.query(
        "SELECT engine, create_table_query FROM system.tables WHERE database = currentDatabase() AND name = {n:String}",
        parameters={"n": setting.name},
    ).result_rows
    name = setting.sql.split("MODIFY SETTING ", 1)[1].split(" =")[0]
    return any(
        engine.endswith("MergeTree") and not engine.startswith("Replicated") and name not in create
        for engine, create in rows
    )


def ensure_schema(client: Client, retention_days: int | None = None) -> int:
    """Brings the store to SCHEMA_VERSION; safe to run on every start. Returns the version."""
    version_table, *schema = plain_schema(retention_days)
    client.command(version_table.sql)
    applied = {row[0] for row in client.query(f"SELECT Version FROM {VERSION_TABLE}").result_rows}
    rederived = False
    fresh = not applied  # a new store: its catch-up steps run over no rows, nothing worth a warning
    if fresh:
        log.info("a new store: making its schema (version %d)", SCHEMA_VERSION)
    for version, statements in groupby(schema, key=lambda s: s.version):
        for s in statements:
            if s.kind == "view":
                rederived |= _ensure_view(client, s)
            elif s.kind == "alter" and version in applied:
                # It ran when its version was applied. An ALTER rewrites the table's metadata even when it
                # changes nothing, and on a full disk that rewrite left the file empty: the table was lost.
                continue
            elif s.kind != "setting" or _needs_setting(client, s):
                client.command(s.sql)
        if version == _ARRIVALS_VERSION and (rederived or version not in applied):
            _count_arrivals(client, fresh)
        if version in REBUILT and version not in applied:
            for name in REBUILT[version]:
                rebuild(client, name, statement(name, retention_days), version)
        if version == TENANT_PARTS_VERSION and version not in applied:
            _tenant_parts_made(client, [s for s in schema if s.kind == "view"], fresh)
        if version == NAMES_VERSION and (rederived or version not in applied):
            _name_again(client, fresh)
            applied.discard(version)  # recorded again below: a re-derivation took its record back
        if version and version not in applied:
            client.command(f"INSERT INTO {VERSION_TABLE} (Version) VALUES ({{v:UInt32}})", parameters={"v": version})
    return SCHEMA_VERSION
