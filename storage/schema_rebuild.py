"""A table made again in the form of its statement, its rows kept: for a change ALTER cannot make (a column of the
sorting key changing type, the sorting key itself), as the exporter's v0.160 metrics form made of the metrics
tables (storage/schema_ddl.py REBUILT).

The new form is made beside the table under a scratch name, the rows copied into it, and the two swapped by
EXCHANGE TABLES; the scratch name then holds the old table, which is dropped. Each step can die: a start that
finds the table already in its statement's form only drops what is left under the scratch name, else it begins
again from an empty scratch table. Run on start, before ingest (rows written to the old table by another
writer while its rows are copied would stay in the old table)."""

import logging

from clickhouse_connect.driver.client import Client

from storage.schema_ddl import Cluster, cluster_table, local_name, renamed

log = logging.getLogger(__name__)


def scratch_name(name: str, version: int) -> str:
    """Where the form of `version` is made beside `name` (a name of its own per migration: a replicated table
    keeps the path of the name it was created under)."""
    return f"{name}_v{version}"


def form(client: Client, name: str) -> tuple:
    """What makes a table's form: its columns with their types in order, its sorting key and its indexes."""
    columns = client.query(
        "SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = {t:String} "
        "ORDER BY position", parameters={"t": name}).result_rows
    keys = client.query(
        "SELECT sorting_key, partition_key FROM system.tables WHERE database = currentDatabase() AND name = {t:String}",
        parameters={"t": name}).result_rows
    indexes = client.query(
        "SELECT name, type_full, expr FROM system.data_skipping_indices WHERE database = currentDatabase() "
        "AND table = {t:String} ORDER BY name", parameters={"t": name}).result_rows
    return tuple(map(tuple, columns)), tuple(map(tuple, keys)), tuple(map(tuple, indexes))


def _columns(client: Client, name: str) -> str:
    rows = client.query(
        "SELECT name FROM system.columns WHERE database = currentDatabase() AND table = {t:String} "
        "ORDER BY position", parameters={"t": name}).result_rows
    return ", ".join(f"`{row[0]}`" for row in rows)


def rebuild(client: Client, name: str, sql: str, version: int) -> bool:
    """Makes `name` again in the form of its statement `sql`, its rows copied, when its form is another.
    Returns whether it did."""
    scratch = scratch_name(name, version)
    client.command(f"DROP TABLE IF EXISTS {scratch} SYNC")
    client.command(renamed(sql, scratch))
    if form(client, name) == form(client, scratch):
        client.command(f"DROP TABLE {scratch} SYNC")
        return False
    stored = client.command(f"SELECT count() FROM {name}")
    log.warning("making %s again in the form of schema %d: copying its %d rows", name, version, stored)
    columns = _columns(client, scratch)
    client.command(f"INSERT INTO {scratch} ({columns}) SELECT {columns} FROM {name}",
                   settings={"insert_deduplicate": 0})
    client.command(f"EXCHANGE TABLES {name} AND {scratch}")
    client.command(f"DROP TABLE {scratch} SYNC")
    return True


def rebuild_on_cluster(client: Client, cluster: Cluster, name: str, sql: str, front: str, version: int) -> bool:
    """The same on a cluster: each shard's local table made again in the new form, its rows copied through
    Distributed tables sharded as the table's own rows are (so each row goes back to its shard), the local
    tables swapped on every node, and the front (`front`, its statement) made again over the new columns.
    Returns whether the local table was made again."""
    local, scratch = local_name(name), scratch_name(name, version)
    on = f"ON CLUSTER {cluster.name}"
    done = False
    for table in (scratch, local_name(scratch)):
        client.command(f"DROP TABLE IF EXISTS {table} {on} SYNC")
    for statement in cluster_table(scratch, sql, cluster, like=name):
        client.command(statement.sql)
    if form(client, local) != form(client, local_name(scratch)):
        stored = client.command(f"SELECT count() FROM {name}")
        log.warning("making %s again in the form of schema %d: copying its %d rows", local, version, stored)
        columns = _columns(client, local_name(scratch))
        client.command(f"INSERT INTO {scratch} ({columns}) SELECT {columns} FROM {name}",
                       settings={"insert_deduplicate": 0, "distributed_foreground_insert": 1})
        client.command(f"EXCHANGE TABLES {local} AND {local_name(scratch)} {on}")
        done = True
    if form(client, name)[0] != form(client, local)[0]:  # a front keeps the columns of its creation
        client.command(f"DROP TABLE IF EXISTS {name} {on} SYNC")
        client.command(front)
    for table in (scratch, local_name(scratch)):
        client.command(f"DROP TABLE IF EXISTS {table} {on} SYNC")
    return done
