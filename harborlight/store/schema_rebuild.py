"""A table made again in the form of its statement, its rows kept: for a change ALTER cannot make (a column of the
sorting key changing type, the sorting key itself), as the exporter's v0.160 metrics form made of the metrics
tables (harborlight/store/schema_ddl.py REBUILT).

Writers are never turned away and no row is lost, also when another receiver goes on writing while this runs:
1. an empty table of the new form takes the table's name at once (EXCHANGE TABLES), so whatever is written from
   then on lands in the new form; the old table, with every row written before, is left under `<name>_v<N>`;
2. its rows are copied into a table of the new form, `<name>_v<N>_rows`, and the old table is dropped;
3. that table's partitions are moved into the table (MOVE PARTITION, each whole at once) and it is dropped.
Each step can die: the next start finds where it was by which of the two tables are there (an old table left:
its copy is made again from the start; a rows table left: its remaining partitions are moved) and completes it.
On a replicated cluster a table keeps the Keeper path of the name it was made under, so the table exchanged in
finally gives its rows and its name to one made under the table's own path, which a replica made later joins.
"""

import logging
import re
from dataclasses import dataclass

from clickhouse_connect.driver.client import Client

from harborlight.sql_text import identifier, literal
from harborlight.store.schema_ddl import REPLICA_PATH, Cluster, cluster_table, local_name, renamed

log = logging.getLogger(__name__)


def form(client: Client, name: str) -> tuple:
    """What makes a table's form: its columns with their types in order, its sorting and partition keys and its
    indexes."""
    columns = client.query(
        "SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = {t:String} "
        "ORDER BY position",
        parameters={"t": name},
    ).result_rows
    keys = client.query(
        "SELECT sorting_key, partition_key FROM system.tables WHERE database = currentDatabase() AND name = {t:String}",
        parameters={"t": name},
    ).result_rows
    indexes = client.query(
        "SELECT name, type_full, expr FROM system.data_skipping_indices WHERE database = currentDatabase() "
        "AND table = {t:String} ORDER BY name",
        parameters={"t": name},
    ).result_rows
    return tuple(map(tuple, columns)), tuple(map(tuple, keys)), tuple(map(tuple, indexes))


def _exists(client: Client, name: str) -> bool:
    return bool(
        client.command(
            "SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = {t:String}",
            parameters={"t": name},
        )
    )


def _columns(client: Client, name: str) -> str:
    """The columns a row is copied by: not those the table computes itself (MATERIALIZED, ALIAS)."""
    rows = client.query(
        "SELECT name FROM system.columns WHERE database = currentDatabase() AND table = {t:String} "
        "AND default_kind NOT IN ('MATERIALIZED', 'ALIAS', 'EPHEMERAL') ORDER BY position",
        parameters={"t": name},
    ).result_rows
    return ", ".join(identifier(row[0]) for row in rows)


def _literal(partition_id: str) -> str:
    if not _PARTITION_ID.fullmatch(partition_id):
        raise ValueError(f"not a partition id: {partition_id!r}")
    return literal(partition_id)


_PARTITION_ID = re.compile(r"[0-9A-Za-z_-]+")


@dataclass
class _Names:
    name: str
    version: int

    @property
    def old(self) -> str:  # the table of the form before, once it gave its name up
        return f"{self.name}_v{self.version}"

    @property
    def rows(self) -> str:  # its rows in the new form, before they move into the table
        return f"{self.name}_v{self.version}_rows"

    @property
    def final(self) -> str:  # a replicated table's new form under the table's own Keeper path
        return f"{self.name}_v{self.version}_final"

    @property
    def probe(self) -> str:  # an empty table of the new form, to compare the table's form with
        return f"{self.name}_v{self.version}_probe"


def rebuild(client: Client, name: str, sql: str, version: int) -> bool:
    """Brings `name` (of one engine) to the form of its statement `sql`, its rows kept; returns whether it had
    another form."""
    n = _Names(name, version)
    client.command(f"DROP TABLE IF EXISTS {n.probe} SYNC")
    client.command(renamed(sql, n.probe))
    other = form(client, name) != form(client, n.probe)
    client.command(f"DROP TABLE {n.probe} SYNC")
    if other:
        client.command(f"DROP TABLE IF EXISTS {n.old} SYNC")  # a start that died before the exchange made it
        client.command(renamed(sql, n.old))
        client.command(f"EXCHANGE TABLES {name} AND {n.old}")
    if _exists(client, n.old):
        log.warning(
            "making %s again in the form of schema %d: copying its %d rows",
            name,
            version,
            client.command(f"SELECT count() FROM {n.old}"),
        )
        client.command(f"DROP TABLE IF EXISTS {n.rows} SYNC")
        client.command(renamed(sql, n.rows))
        columns = _columns(client, n.rows)
        client.command(
            f"INSERT INTO {n.rows} ({columns}) SELECT {columns} FROM {n.old}", settings={"insert_deduplicate": 0}
        )
        client.command(f"DROP TABLE {n.old} SYNC")
    if _exists(client, n.rows):
        for (partition,) in client.query(f"SELECT DISTINCT _partition_id FROM {n.rows}").result_rows:
            client.command(f"ALTER TABLE {n.rows} MOVE PARTITION ID {_literal(partition)} TO TABLE {name}")
        client.command(f"DROP TABLE {n.rows} SYNC")
    return other


def rebuild_on_cluster(client: Client, cluster: Cluster, name: str, sql: str, front: str, version: int) -> bool:
    """The same on a cluster: every node's local table exchanged for one of the new form at once, the front
    (`front`, its statement) made again over the new columns, the old rows copied through Distributed tables
    sharded as the table's own rows (each row back to its shard) and moved in partition by partition on every
    node. Returns whether the local table had another form."""
    n, local, on = _Names(name, version), local_name(name), f"ON CLUSTER {cluster.name}"

    def drop(*tables: str) -> None:
        for table in tables:
            client.command(f"DROP TABLE IF EXISTS {table} {on} SYNC")

    def make(table: str) -> None:  # its local table and a Distributed front, sharded as `name`'s rows
        drop(table, local_name(table))
        for statement in cluster_table(table, sql, cluster, like=name):
            client.command(statement.sql)

    def front_over(table: str) -> str:  # a front over a local table of another form, sharded as `name`'s rows
        key = front.rsplit(f"'{local}', ", 1)[1]
        return (
            f"CREATE TABLE IF NOT EXISTS {table} {on} AS {local_name(table)}\n"
            f"ENGINE = Distributed('{cluster.name}', currentDatabase(), '{local_name(table)}', {key}"
        )

    make(n.probe)
    other = form(client, local) != form(client, local_name(n.probe))
    drop(n.probe, local_name(n.probe))
    if other:
        drop(n.old, local_name(n.old))
        client.command(cluster_table(n.old, sql, cluster, like=name)[0].sql)  # its local table only
        client.command(f"EXCHANGE TABLES {local} AND {local_name(n.old)} {on}")
    if form(client, name)[0] != form(client, local)[0]:  # a front keeps the columns it was made with
        drop(name)
        client.command(front)
    if _exists(client, local_name(n.old)):
        drop(n.old)
        client.command(front_over(n.old))
        log.warning(
            "making %s again in the form of schema %d: copying its %d rows",
            local,
            version,
            client.command(f"SELECT count() FROM {n.old}"),
        )
        make(n.rows)
        columns = _columns(client, local_name(n.rows))
        client.command(
            f"INSERT INTO {n.rows} ({columns}) SELECT {columns} FROM {n.old}",
            settings={"insert_deduplicate": 0, "distributed_foreground_insert": 1},
        )
        drop(n.old, local_name(n.old))
    if cluster.replicated and not _keeper_path(client, local).endswith(f"/{local}"):
        # The table exchanged in keeps the Keeper path of the name it was made under: it gives its rows and its
        # name to one made under the table's own path (free since the old table was dropped), so a replica made
        # later by `apply` joins it.
        drop(local_name(n.final))
        client.command(keeper_path_statement(cluster_table(n.final, sql, cluster, like=name)[0].sql, local))
        client.command(f"EXCHANGE TABLES {local} AND {local_name(n.final)} {on}")
    for source in (n.rows, n.final):
        if _exists(client, local_name(source)):
            partitions = client.query(
                "SELECT DISTINCT partition_id FROM clusterAllReplicas({c:String}, system.parts) "
                "WHERE database = currentDatabase() AND table = {t:String} AND active",
                parameters={"c": cluster.name, "t": local_name(source)},
            ).result_rows
            for (partition,) in partitions:  # a node without the partition moves nothing
                client.command(
                    f"ALTER TABLE {local_name(source)} {on} MOVE PARTITION ID {_literal(partition)} TO TABLE {local}"
                )
            drop(source, local_name(source))
    return other


def keeper_path_statement(sql: str, table: str) -> str:
    """A replicated local table's statement whose Keeper path is `table`'s (the path names its table)."""
    path = literal(REPLICA_PATH)
    if path not in sql:
        raise ValueError("not a replicated table of the cluster form")
    return sql.replace(path, literal(REPLICA_PATH.replace("{table}", table)), 1)


def _keeper_path(client: Client, table: str) -> str:
    rows = client.query(
        "SELECT zookeeper_path FROM system.replicas WHERE database = currentDatabase() AND table = {t:String}",
        parameters={"t": table},
    ).result_rows
    return rows[0][0] if rows else ""
