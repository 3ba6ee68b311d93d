"""The schema's DDL, generated in one of two forms from the statement files under harborlight/store/sql/.

The plain form is what builds a store of one engine (embedded chDB or one server: harborlight/store/schema.py runs
it). The cluster form is the same schema for a ClickHouse cluster: each table becomes `<name>_local` on
every node (`Replicated*MergeTree` with --replicated) and a `Distributed` table under the name harborlight
and Grafana read, every statement `ON CLUSTER`, and each materialized view reads and writes the local
tables, so what a view derives from a row lands on that row's shard. A table added to MIGRATIONS gets its
cluster form from the same code; a table without a sharding key (SHARD_KEYS) is refused by name.
"""

import hashlib
import re
from dataclasses import dataclass
from importlib.resources import files

from harborlight.sql_text import RAW_TENANT

# Each migration is a list of statement files under harborlight/store/sql/, applied in order.
MIGRATIONS: list[tuple[int, list[str]]] = [
    (
        1,
        [
            "otel_traces",
            "otel_traces_trace_id_ts",
            "otel_logs",
            "otel_metrics_gauge",
            "otel_metrics_sum",
            "otel_metrics_histogram",
            "harborlight_ingested_requests",
        ],
    ),
    # The agent layer: agent_events (its views, compiled from harborlight/agent/rules.py, are in the last step).
    (2, ["agent_events"]),
    # RequestId: a model call's provider request id.
    (3, ["agent_events_request_id"]),
    # AgentVersion (the agent's own version when no harness names it) and SideCall (a model call that serves
    # the session, not its turns); SessionId (the agent's own session id, by which an imported trial takes
    # the records streamed under it). The views come last: they write every column the statements before
    # them create (each start runs every statement; each is idempotent).
    (
        4,
        [
            "agent_events_side_call",
            "agent_events_session_id",
            "agent_events_session_id_index",
            "agent_events_traces_mv",
            "agent_events_logs_mv",
        ],
    ),
    # Trial summaries: each trial's row stored where every reader reads it (trial_rows), derived again when
    # the trial's arrival count moves (trial_arrivals, fed by its view, against trial_summarized). The
    # counts of a store from before are taken from its agent events (harborlight/store/schema.py _count_arrivals).
    (5, ["trial_arrivals", "trial_summarized", "trial_rows", "trial_arrivals_mv"]),
    # Job rows: each job's row stored beside its trials' (job_rows), so the dashboards read the API's solve
    # rates instead of computing their own; a store from before gets them after its start
    # (harborlight/summaries/refresh.py derive_underived_jobs).
    (6, ["job_rows"]),
    # Request claims: receivers sharing a server store each request once, also when two commit it at once.
    (7, ["harborlight_request_claims"]),
    # Agent names: who names the records named after a trace or a session, kept by name as agent events
    # arrive (its view's statement is harborlight/agent/identity.py's, written by harborlight/agent/compile.py),
    # so one trial's read looks its names up by key range. A store from before gets its stored events' names
    # (harborlight/store/schema.py _name_again).
    (8, ["agent_names", "agent_names_mv"]),
    # Every metric type in the form of the exporter's metrics change of v0.160 (MetricName LowCardinality,
    # second-precision times, rows ordered by the hour and the attributes' hash, idx_time_minmax): the two
    # types it had no table for, and the three it had rebuilt in that form with their rows (REBUILT).
    (9, ["otel_metrics_exponential_histogram", "otel_metrics_summary"]),
    # Tenants in parts of their own: the tenant leads the partition key of every table with a tenant
    # (TENANT_KEYS), so merges never put two tenants' rows in one part, and the trace-id index keeps its rows'
    # tenant. A store from before gets each such table made again with its rows (REBUILT), the index's rows
    # derived again from the spans, and the views on those tables made again (harborlight/store/schema.py).
    (10, ["otel_traces_trace_id_ts_tenant", "otel_traces_trace_id_ts_mv"]),
    # Resolved events: agent events as every reader reads them, resolved once by the keeper when a trial's
    # events change (harborlight/summaries/resolve.py); a store from before gets them as its trials are
    # derived again (the resolution's hash differs from the newest in harborlight_resolved_rule).
    (11, ["resolved_events", "harborlight_resolved_rule"]),
    # Call rollups: the resolved calls per trial, kind, model or tool category and minute, written with each
    # resolution, which the job-wide panels read; a store from before gets them as its trials are resolved again
    # (the resolution's hash names the rollup's statements too).
    (12, ["call_rollups"]),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]
NAMES_VERSION = next(version for version, names in MIGRATIONS if "agent_names" in names)
METRICS_FORM_VERSION = next(version for version, names in MIGRATIONS if "otel_metrics_summary" in names)
TENANT_PARTS_VERSION = next(version for version, names in MIGRATIONS if "otel_traces_trace_id_ts_tenant" in names)
_MADE_IN = {name: version for version, names in MIGRATIONS for name in names}  # the migration a file is applied in

# The tables the OpenTelemetry Collector's ClickHouse exporter writes: what a producer sent, verbatim.
RAW_TABLES = (
    "otel_traces",
    "otel_logs",
    "otel_metrics_gauge",
    "otel_metrics_sum",
    "otel_metrics_histogram",
    "otel_metrics_exponential_histogram",
    "otel_metrics_summary",
)

# The tenant of a row in each table that has one: the resource attribute the collector stamps on every raw row
# with tenants on, or the agent layer's Tenant column ('' with tenants off). It leads the table's partition key
# (statement() puts it there), so no part ever holds two tenants' rows, whatever the engine merges; and a
# tenant's read through the SQL interface, filtered on exactly this expression, has every other tenant's parts
# pruned before any row is read, so nothing the tenant writes is ever evaluated on another tenant's rows.
TENANT_KEYS: dict[str, str] = {
    **dict.fromkeys(RAW_TABLES, RAW_TENANT),
    **dict.fromkeys(
        (
            "otel_traces_trace_id_ts",
            "agent_events",
            "agent_names",
            "trial_arrivals",
            "trial_summarized",
            "trial_rows",
            "job_rows",
            "resolved_events",
            "call_rollups",
        ),
        "Tenant",
    ),
}

# Tables whose form a migration changed beyond what ALTER can do (types in the sorting key, the key itself): a
# store that has them in an older form gets them made again in the form of their statement, rows copied.
REBUILT: dict[int, tuple[str, ...]] = {
    METRICS_FORM_VERSION: ("otel_metrics_gauge", "otel_metrics_sum", "otel_metrics_histogram"),
    # (tables made after it are made tenant-partitioned)
    TENANT_PARTS_VERSION: tuple(t for t in TENANT_KEYS if _MADE_IN[t] < TENANT_PARTS_VERSION),
}

VERSION_TABLE = "harborlight_schema_migrations"
_VERSION_TABLE_SQL = f"""CREATE TABLE IF NOT EXISTS {VERSION_TABLE} (
    Version UInt32,
    AppliedAt DateTime DEFAULT now()
) ENGINE = MergeTree() ORDER BY Version"""

# The tables a commit writes, directly or through views. A commit retried after a failure carries the
# same insert_deduplication_token, and each of these skips the blocks it already has from the failed
# attempt: plain MergeTree tables only remember recent block ids when given this window (Replicated
# tables always do, and a Distributed table has no such setting).
RETRY_SAFE_TABLES = (
    "otel_traces",
    "otel_traces_trace_id_ts",
    "otel_logs",
    "otel_metrics_gauge",
    "otel_metrics_sum",
    "otel_metrics_histogram",
    "otel_metrics_exponential_histogram",
    "otel_metrics_summary",
    "agent_events",
    "trial_arrivals",
)
DEDUPLICATION_WINDOW = 1000

# The resource attribute that names a trial (the first place the rule table looks for it: tests/storage check they
# agree): raw rows are sharded by it, so a trial's spans, logs, agent events and summary share a shard. Spelled
# here, not read from the rules: a cluster's sharding key must not move with an edit of the rule table.
TRIAL_ATTRIBUTE = "harbor.trial.name"
_RAW_TRIAL = f"ResourceAttributes['{TRIAL_ATTRIBUTE}']"

# Each Distributed table's sharding key, per --shard-by. Under `trial` one trial's rows share a shard
# wherever they are stored (the same name hashes alike in every table: rows without a trial name go by their
# trace id, as the agent layer names them); under `trace` one trace's rows do.
SHARD_KEYS: dict[str, dict[str, str]] = {
    "trial": {
        "otel_traces": f"cityHash64(if({_RAW_TRIAL} != '', {_RAW_TRIAL}, TraceId))",
        "otel_logs": f"cityHash64(if({_RAW_TRIAL} != '', {_RAW_TRIAL}, TraceId))",
        "otel_traces_trace_id_ts": "cityHash64(TraceId)",
        "otel_metrics_gauge": f"cityHash64({_RAW_TRIAL})",
        "otel_metrics_sum": f"cityHash64({_RAW_TRIAL})",
        "otel_metrics_histogram": f"cityHash64({_RAW_TRIAL})",
        "otel_metrics_exponential_histogram": f"cityHash64({_RAW_TRIAL})",
        "otel_metrics_summary": f"cityHash64({_RAW_TRIAL})",
        "agent_events": "cityHash64(ifNull(TrialName, TraceId))",
        "trial_arrivals": "cityHash64(TrialKey)",
        # A name's rows are written on the shard of the record that names it (its view reads that shard's
        # agent_events), so no read may skip shards by the name: the key only spreads rows written to the front.
        "agent_names": "rand()",
        "trial_summarized": "cityHash64(TrialKey)",
        "trial_rows": "cityHash64(trial)",
        "job_rows": "cityHash64(job)",
        "resolved_events": "cityHash64(TrialKey)",
        "call_rollups": "cityHash64(TrialKey)",
        "harborlight_resolved_rule": "cityHash64(Hash)",
        "harborlight_ingested_requests": "cityHash64(Digest)",
        "harborlight_request_claims": "cityHash64(Digest)",
        VERSION_TABLE: "Version",
    },
}
SHARD_KEYS["trace"] = SHARD_KEYS["trial"] | {
    "otel_traces": "cityHash64(TraceId)",
    "otel_logs": "cityHash64(TraceId)",
    "agent_events": "cityHash64(TraceId)",
}

REPLICA_PATH = "/clickhouse/tables/{shard}/{database}/{table}"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# What each statement file starts with, after its comment lines: the name it creates or alters comes first.
_CREATE_TABLE = re.compile(r"^CREATE TABLE IF NOT EXISTS (\w+) ", re.M)
_ALTER = re.compile(r"^ALTER TABLE (\w+)", re.M)
_ADDS_INDEX = re.compile(r"\bADD INDEX\b")
_VIEW = re.compile(r"^CREATE MATERIALIZED VIEW IF NOT EXISTS (\w+) TO (\w+) ", re.M)
_ENGINE = re.compile(r"ENGINE = (\w*MergeTree)\(([^)]*)\)")


@dataclass(frozen=True)
class Cluster:
    """Where the cluster form goes: the cluster's name (remote_servers), whether its tables replicate,
    and what keeps rows together on a shard (a key of SHARD_KEYS)."""

    name: str
    replicated: bool = False
    shard_by: str = "trial"

    def __post_init__(self) -> None:
        if not _NAME.fullmatch(self.name):
            raise ValueError(f"the cluster name {self.name!r} is not a ClickHouse identifier (letters, digits, _)")
        if self.shard_by not in SHARD_KEYS:
            raise ValueError(f"--shard-by {self.shard_by!r}: choose one of {', '.join(SHARD_KEYS)}")


@dataclass(frozen=True)
class Statement:
    """One DDL statement. `name` is what it creates or alters, under the name harborlight reads; `version`
    the migration it belongs to (0: bookkeeping); `kind` is table, alter, view or setting."""

    name: str
    version: int
    kind: str
    sql: str


def _file(name: str) -> str:
    return files("harborlight.store").joinpath("sql", f"{name}.sql").read_text()


def _columns_of(table: str) -> str:
    """The column lines of a table's statement file (up to its indexes, each ending in its comma; their comments,
    which speak of that table, left out), for a table that has the same columns."""
    body = _file(table).split(" (\n", 1)[1]
    lines = body[: body.index("\n    INDEX ")].splitlines()
    return "\n    ".join(line.split("  --", 1)[0].strip() for line in lines)


def statement(name: str, retention_days: int | None = None) -> str:
    """The plain statement of harborlight/store/sql/<name>.sql, with the exporter's TTL when retention is asked, and
    `{columns:<table>}` replaced by that table's column lines."""
    sql = _file(name)
    sql = re.sub(r"\{columns:(\w+)\}", lambda m: _columns_of(m[1]), sql)
    for column in ("Timestamp", "Start", "TimeUnix", "Minute"):
        placeholder = f"{{ttl:{column}}}"
        if retention_days:
            sql = sql.replace(placeholder, f"TTL toDateTime({column}) + toIntervalDay({int(retention_days)})")
        else:
            sql = sql.replace(f"{placeholder}\n", "")
    if name in TENANT_KEYS:
        sql = tenant_partitioned(sql, TENANT_KEYS[name])
    return sql


_PARTITION_BY = re.compile(r"^PARTITION BY (.+)$", re.M)
_ORDER_BY = re.compile(r"^ORDER BY ", re.M)


def tenant_partitioned(sql: str, tenant: str) -> str:
    """A CREATE TABLE statement whose partition key is led by the row's `tenant` expression."""
    if by := _PARTITION_BY.search(sql):
        return f"{sql[: by.start(1)]}({tenant}, {by[1]}){sql[by.end(1) :]}"
    if order := _ORDER_BY.search(sql):
        return f"{sql[: order.start()]}PARTITION BY {tenant}\n{sql[order.start() :]}"
    raise ValueError("a tenant's table needs an ORDER BY line to put its partition key before")


# The trace-id index derived again from the stored spans (its view's statement over every row), each row with
# its tenant: for a store from before the index kept its rows' tenant.
TRACE_INDEX_FILL = (
    "INSERT INTO otel_traces_trace_id_ts (TraceId, Start, End, Tenant) "
    + statement("otel_traces_trace_id_ts_mv").split(" AS\n", 1)[1]
)

# The names of the stored agent events, as their view writes them (its statement over every row): for a store from
# before the names table, and after agent events were derived again.
NAMES_FILL = "INSERT INTO agent_names (Tenant, Name, Job, Namer)\n" + statement("agent_names_mv").split(" AS\n", 1)[1]


def view_comment(sql: str) -> str:
    """What a materialized view created from `sql` carries as its comment: the statement's hash."""
    return "harborlight:" + hashlib.sha256(sql.encode()).hexdigest()[:16]


def with_comment(sql: str) -> str:
    """A view's statement as it is run: its hash appended as its COMMENT."""
    return f"{sql.rstrip()}\nCOMMENT '{view_comment(sql)}'"


def without_comment(sql: str) -> str:
    return sql.rsplit("\nCOMMENT '", 1)[0]


def comment_of(sql: str) -> str:
    return sql.rsplit("\nCOMMENT '", 1)[1].rstrip("'")


def plain_schema(retention_days: int | None = None) -> list[Statement]:
    """The statements that build (or bring up to date) a store of one engine, in order."""
    out = [Statement(VERSION_TABLE, 0, "table", _VERSION_TABLE_SQL)]
    for version, names in MIGRATIONS:
        for name in names:
            sql = statement(name, retention_days)
            if view := _VIEW.search(sql):
                out.append(Statement(view[1], version, "view", with_comment(sql)))
            elif alter := _ALTER.search(sql):
                out.append(Statement(alter[1], version, "alter", sql))
            elif table := _CREATE_TABLE.search(sql):
                out.append(Statement(table[1], version, "table", sql))
            else:
                raise ValueError(
                    f"harborlight/store/sql/{name}.sql is none of CREATE TABLE, ALTER TABLE, CREATE MATERIALIZED "
                    "VIEW: give it a cluster form in harborlight/store/schema_ddl.py"
                )
    out += [
        Statement(
            t,
            0,
            "setting",
            f"ALTER TABLE {t} MODIFY SETTING non_replicated_deduplication_window = {DEDUPLICATION_WINDOW}",
        )
        for t in RETRY_SAFE_TABLES
    ]
    return out


def cluster_schema(cluster: Cluster, retention_days: int | None = None) -> list[Statement]:
    """The same statements for `cluster`: local tables, Distributed fronts, views on the local tables."""
    plain = plain_schema(retention_days)
    tables = {s.name for s in plain if s.kind == "table"}
    missing = sorted(tables - SHARD_KEYS[cluster.shard_by].keys())
    if missing:
        raise ValueError(
            f"no sharding key for {', '.join(missing)}: add it to SHARD_KEYS in harborlight/store/schema_ddl.py"
        )
    out: list[Statement] = []
    for s in plain:
        if s.kind == "table":
            out += _table(s, cluster)
        elif s.kind == "alter":  # a Distributed front has columns, never indexes
            out += [_local(s, cluster)] + ([] if _ADDS_INDEX.search(s.sql) else [_front(s, cluster)])
        elif s.kind == "setting" and not cluster.replicated:
            out.append(_local(s, cluster))
        elif s.kind == "view":
            out.append(_view(s, cluster, tables))
    return out


def renamed(sql: str, name: str) -> str:
    """A CREATE TABLE statement that creates `name` instead."""
    return _CREATE_TABLE.sub(f"CREATE TABLE IF NOT EXISTS {name} ", sql, count=1)


def cluster_table(name: str, sql: str, cluster: Cluster, like: str | None = None) -> list[Statement]:
    """The local table and Distributed front of plain statement `sql` creating `name`, sharded as `like`'s rows
    are (default: as its own)."""
    return _table(Statement(name, 0, "table", renamed(sql, name)), cluster, like)


def local_name(name: str) -> str:
    return f"{name}_local"


def _on(cluster: Cluster) -> str:
    return f"ON CLUSTER {cluster.name}"


def _table(s: Statement, cluster: Cluster, like: str | None = None) -> list[Statement]:
    local = _CREATE_TABLE.sub(f"CREATE TABLE IF NOT EXISTS {local_name(s.name)} {_on(cluster)} ", s.sql, count=1)
    if cluster.replicated:
        local = _ENGINE.sub(_replicated_engine, local, count=1)
    key = SHARD_KEYS[cluster.shard_by][like or s.name]
    front = (
        f"CREATE TABLE IF NOT EXISTS {s.name} {_on(cluster)} AS {local_name(s.name)}\n"
        f"ENGINE = Distributed('{cluster.name}', currentDatabase(), '{local_name(s.name)}', {key})"
    )
    return [Statement(local_name(s.name), s.version, "table", local), Statement(s.name, s.version, "table", front)]


def _replicated_engine(engine: re.Match) -> str:
    arguments = ", ".join(a for a in (f"'{REPLICA_PATH}'", "'{replica}'", engine[2].strip()) if a)
    return f"ENGINE = Replicated{engine[1]}({arguments})"


def _local(s: Statement, cluster: Cluster) -> Statement:
    sql = _ALTER.sub(f"ALTER TABLE {local_name(s.name)} {_on(cluster)}", s.sql, count=1)
    return Statement(local_name(s.name), s.version, s.kind, sql)


def _front(s: Statement, cluster: Cluster) -> Statement:
    return Statement(s.name, s.version, s.kind, _ALTER.sub(f"ALTER TABLE {s.name} {_on(cluster)}", s.sql, count=1))


def _view(s: Statement, cluster: Cluster, tables: set[str]) -> Statement:
    plain = without_comment(s.sql)
    match = _VIEW.search(plain)
    sql = _VIEW.sub(
        f"CREATE MATERIALIZED VIEW IF NOT EXISTS {s.name} {_on(cluster)} TO {local_name(match[2])} ", plain, count=1
    )
    # The view fires on inserts into its source's local table (a shard's), never on the Distributed front.
    sql = re.sub(r"\bFROM (\w+)\b", lambda m: f"FROM {local_name(m[1])}" if m[1] in tables else m[0], sql)
    return Statement(s.name, s.version, "view", with_comment(sql))
