"""The cluster form on a ClickHouse cluster: applied statement by statement (`harborlight schema --cluster
NAME apply`), and checked against system.tables before receivers write to it (`serve --cluster NAME`).

A view made from other statements (an older rule table) is dropped and made again across the cluster; its
stored rows stay as they were derived (agent events cannot be deleted and derived again through a
Distributed table the way harborlight/store/schema.py does it on one engine). A store from before the names
table gets its stored events' names, read and written through the Distributed tables. A table whose form ALTER
cannot reach (harborlight/store/schema_ddl.py REBUILT) is made again on every node with its rows
(harborlight/store/schema_rebuild.py)."""

from clickhouse_connect.driver.client import Client

from harborlight.store.client import Store, StoreUnavailable
from harborlight.store.schema_ddl import (
    NAMES_FILL,
    NAMES_VERSION,
    REBUILT,
    TENANT_PARTS_VERSION,
    TRACE_INDEX_FILL,
    VERSION_TABLE,
    Cluster,
    Statement,
    cluster_schema,
    comment_of,
    local_name,
    plain_schema,
    statement,
)
from harborlight.store.schema_rebuild import rebuild_on_cluster


def _tables(client: Client) -> dict[str, tuple[str, str]]:
    """name -> (engine, comment) of this node's tables in the client's database."""
    rows = client.query(
        "SELECT name, engine, comment FROM system.tables WHERE database = currentDatabase()"
    ).result_rows
    return {name: (engine, comment) for name, engine, comment in rows}


def apply_cluster_schema(client: Client, cluster: Cluster, retention_days: int | None = None) -> list[Statement]:
    """Runs what the cluster lacks of its form, in order, and records the versions; returns what ran."""
    present = _tables(client)
    ran = []
    for s in cluster_schema(cluster, retention_days):
        if s.kind == "view" and s.name in present:
            if present[s.name][1] == comment_of(s.sql):
                continue
            client.command(f"DROP VIEW IF EXISTS {s.name} ON CLUSTER {cluster.name} SYNC")
        client.command(s.sql)
        ran.append(s)
    applied = {row[0] for row in client.query(f"SELECT Version FROM {VERSION_TABLE}").result_rows}
    fronts = {s.name: s.sql for s in cluster_schema(cluster, retention_days) if s.kind == "table"}
    for version, names in REBUILT.items():
        if version not in applied:  # tables of an older form made again, their rows kept
            for name in names:
                rebuild_on_cluster(client, cluster, name, statement(name, retention_days), fronts[name], version)
    if TENANT_PARTS_VERSION not in applied:  # the views on the tables made again; the index's rows with their tenant
        for s in cluster_schema(cluster, retention_days):
            if s.kind == "view":
                client.command(f"DROP VIEW IF EXISTS {s.name} ON CLUSTER {cluster.name} SYNC")
                client.command(s.sql)
        client.command(
            f"TRUNCATE TABLE IF EXISTS {local_name('otel_traces_trace_id_ts')} ON CLUSTER {cluster.name} SYNC"
        )
        client.command(TRACE_INDEX_FILL, settings={"distributed_foreground_insert": 1, "insert_deduplicate": 0})
    if NAMES_VERSION not in applied:  # a store from before the names table: its events' names, through the fronts
        client.command(f"TRUNCATE TABLE IF EXISTS {local_name('agent_names')} ON CLUSTER {cluster.name} SYNC")
        client.command(NAMES_FILL, settings={"distributed_foreground_insert": 1, "insert_deduplicate": 0})
    for version in sorted({s.version for s in plain_schema()} - applied - {0}):
        client.command(
            f"INSERT INTO {VERSION_TABLE} (Version) VALUES ({{v:UInt32}})",
            parameters={"v": version},
            settings={"distributed_foreground_insert": 1},
        )
    return ran


def cluster_schema_problems(client: Client, cluster: Cluster) -> list[str]:
    """What this node's tables lack of the cluster form: each a short phrase, none when it matches."""
    present = _tables(client)
    wanted = {}  # name -> the engine it must have
    for s in plain_schema():
        if s.kind == "table":
            wanted |= {s.name: "Distributed", local_name(s.name): "MergeTree"}
    views = {s.name: comment_of(s.sql) for s in cluster_schema(cluster) if s.kind == "view"}
    problems = []
    for name, engine in (wanted | dict.fromkeys(views, "MaterializedView")).items():
        have, comment = present.get(name, ("", ""))
        if not have:
            problems.append(f"{name} is missing")
        elif not have.endswith(engine):
            problems.append(f"{name} is {have}, not {engine}")
        elif name in views and comment != views[name]:
            problems.append(f"{name} was made from other statements")
    return problems


def use_cluster(store: Store, name: str) -> None:
    """Readies `store` (a server of cluster `name`) for harborlight's reads and writes, or refuses in one line
    when its tables are not the cluster form. Inserts into a Distributed table are stored on their shards
    before they return (else the receiving node queues them, and a commit would count as done before it is),
    and carry their deduplication token there. A read that names its trial's sharding key asks that shard only."""
    cluster = Cluster(name)
    if problems := cluster_schema_problems(store.client, cluster):
        shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
        raise StoreUnavailable(
            f"the store's tables are not the cluster form of {name}: {shown} "
            f"(make them with: harborlight schema --cluster {name} [--replicated] apply --clickhouse-url URL)"
        )
    store.client.set_client_setting("insert_distributed_sync", 1)
    store.client.set_client_setting("optimize_skip_unused_shards", 1)
