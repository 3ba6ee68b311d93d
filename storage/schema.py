"""Creates the exporter tables idempotently and records the schema version for later migrations."""

import hashlib
import logging
from importlib.resources import files

from clickhouse_connect.driver.client import Client

from storage.agent_sources import CONTEXTS

log = logging.getLogger(__name__)

# Each migration is a list of statement files under storage/sql/, applied in order.
MIGRATIONS: list[tuple[int, list[str]]] = [
    (1, [
        "otel_traces", "otel_traces_trace_id_ts", "otel_traces_trace_id_ts_mv", "otel_logs",
        "otel_metrics_gauge", "otel_metrics_sum", "otel_metrics_histogram", "harborlight_ingested_requests",
    ]),
    # The agent layer: agent_events (its views, compiled from storage/agent_rules.py, are in the last step).
    (2, ["agent_events"]),
    # RequestId: a model call's provider request id.
    (3, ["agent_events_request_id"]),
    # AgentVersion (the agent's own version when no harness names it) and SideCall (a model call that serves
    # the session, not its turns). The views come last: they write every column the statements before them
    # create (each start runs every statement; each is idempotent).
    (4, ["agent_events_side_call", "agent_events_traces_mv", "agent_events_logs_mv"]),
    # Trial summaries: each trial's row stored where every reader reads it (trial_rows), derived again when
    # the trial's arrival count moves (trial_arrivals, fed by its view, against trial_summarized). The
    # counts of a store from before are taken from its agent events (_count_arrivals).
    (5, ["trial_arrivals", "trial_summarized", "trial_rows", "trial_arrivals_mv"]),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]
_ARRIVALS_VERSION = 5

# The tables a commit writes, directly or through views. A commit retried after a failure carries the
# same insert_deduplication_token, and each of these skips the blocks it already has from the failed
# attempt: plain MergeTree tables only remember recent block ids when given this window (Replicated
# tables always do, and a Distributed table has no such setting).
RETRY_SAFE_TABLES = (
    "otel_traces", "otel_traces_trace_id_ts", "otel_logs", "otel_metrics_gauge", "otel_metrics_sum",
    "otel_metrics_histogram", "agent_events", "trial_arrivals",
)
DEDUPLICATION_WINDOW = 1000

_VERSION_TABLE = """
CREATE TABLE IF NOT EXISTS harborlight_schema_migrations (
    Version UInt32,
    AppliedAt DateTime DEFAULT now()
) ENGINE = MergeTree() ORDER BY Version
"""


def statement(name: str, retention_days: int | None = None) -> str:
    sql = files("storage").joinpath("sql", f"{name}.sql").read_text()
    for column in ("Timestamp", "Start", "TimeUnix"):
        ttl = f"TTL toDateTime({column}) + toIntervalDay({int(retention_days)})" if retention_days else ""
        sql = sql.replace(f"{{ttl:{column}}}", ttl)
    return sql


def view_comment(sql: str) -> str:
    """What a materialized view created from `sql` carries as its comment: the statement's hash."""
    return "harborlight:" + hashlib.sha256(sql.encode()).hexdigest()[:16]


def _current_comment(client: Client, name: str) -> str | None:
    rows = client.query(
        "SELECT comment FROM system.tables WHERE database = currentDatabase() AND name = {n:String}",
        parameters={"n": name},
    ).result_rows
    return rows[0][0] if rows else None


def _ensure_view(client: Client, name: str, sql: str) -> bool:
    """Creates the materialized view, or drops and creates it again when the store's was created from
    another statement (an older rule table): IF NOT EXISTS alone would keep the old one forever.
    Returns whether stored agent events were derived again.
    An agent view's stored rows are derived again first, and the view is swapped last: a start
    interrupted in between finds the old view still there and does it all again."""
    comment = view_comment(sql)
    current = _current_comment(client, name)
    if current == comment:
        return False
    reclassified = current is not None and name in _AGENT_SOURCES
    if reclassified:
        _reclassify(client, name, sql)
    client.command(f"DROP VIEW IF EXISTS {name}")
    client.command(f"{sql.rstrip()}\nCOMMENT '{comment}'")
    return reclassified


_AGENT_SOURCES = {ctx.mv: ctx.table for ctx in CONTEXTS}


def _reclassify(client: Client, view: str, sql: str) -> None:
    """The agent events an older rule table derived from `view`'s raw table are derived again by the
    new view's query, so old data reads as new data does (this runs on start, before ingest does).
    Deleting and inserting again is idempotent, so a start that dies half-way can simply repeat it."""
    table = _AGENT_SOURCES[view]
    # No early return on zero stored rows: a start that died after the DELETE left exactly that.
    stale = client.command("SELECT count() FROM agent_events WHERE SourceTable = {t:String}", parameters={"t": table})
    log.warning("the agent rules changed: deriving the agent events of %s again (%d stored)", table, stale)
    client.command("DELETE FROM agent_events WHERE SourceTable = {t:String}", parameters={"t": table})
    select = sql.split(" TO agent_events AS", 1)[1]
    columns = [row[0] for row in client.query(f"DESCRIBE ({select})").result_rows]  # a view matches them by name
    # A repeated attempt writes the same blocks again: they are not retries to skip.
    client.command(f"INSERT INTO agent_events ({', '.join(columns)}) {select}", settings={"insert_deduplicate": 0})


def _count_arrivals(client: Client) -> None:
    """trial_arrivals counted again from the stored agent events, and every trial's row marked for deriving
    again: for a store from before trial summaries, and after agent events were derived again (their
    DELETE and INSERT moved the counts). It runs on start, before ingest does, and repeats whole after a
    start that died half-way (the version is recorded after it)."""
    log.warning("counting the stored agent events per trial: every trial's row will be derived again")
    client.command("TRUNCATE TABLE trial_arrivals")
    client.command("TRUNCATE TABLE trial_summarized")
    select = statement("trial_arrivals_mv").split(" AS\n", 1)[1]
    client.command(f"INSERT INTO trial_arrivals {select}", settings={"insert_deduplicate": 0})


def _ensure_deduplication_window(client: Client) -> None:
    rows = client.query(
        "SELECT name, engine, create_table_query FROM system.tables "
        "WHERE database = currentDatabase() AND name IN {names:Array(String)}",
        parameters={"names": list(RETRY_SAFE_TABLES)},
    ).result_rows
    for name, engine, create in rows:
        if engine.endswith("MergeTree") and not engine.startswith("Replicated") \
                and "non_replicated_deduplication_window" not in create:
            client.command(
                f"ALTER TABLE {name} MODIFY SETTING non_replicated_deduplication_window = {DEDUPLICATION_WINDOW}"
            )


def ensure_schema(client: Client, retention_days: int | None = None) -> int:
    """Brings the store to SCHEMA_VERSION; safe to run on every start. Returns the version."""
    client.command(_VERSION_TABLE)
    applied = {row[0] for row in client.query("SELECT Version FROM harborlight_schema_migrations").result_rows}
    rederived = False
    for version, names in MIGRATIONS:
        for name in names:
            sql = statement(name, retention_days)
            if sql.startswith("CREATE MATERIALIZED VIEW"):
                rederived |= _ensure_view(client, name, sql)
            else:
                client.command(sql)
        if version == _ARRIVALS_VERSION and (rederived or version not in applied):
            _count_arrivals(client)
        if version not in applied:
            client.command(
                "INSERT INTO harborlight_schema_migrations (Version) VALUES ({v:UInt32})", parameters={"v": version}
            )
    _ensure_deduplication_window(client)
    return SCHEMA_VERSION
