"""One generator, two forms: the plain form is what builds a store (a store built from `harborlight schema
print` is the store the migrations build), and every statement of the cluster form is one the engine's own
parser reads, with a local table, a Distributed front and views on the local tables for each table.
(chDB has no cluster or Keeper, so the cluster form is parsed here, not run.)"""

import re

import clickhouse_connect
import pytest

from harborlight.store import ensure_schema
from harborlight.store.schema_ddl import REPLICA_PATH, Cluster, cluster_schema, local_name, plain_schema
from tests.cli.commands import run
from tests.support.old_schema import downgrade_to_schema_2

FORMS = {
    "plain": None,
    "cluster": Cluster("hl"),
    "replicated": Cluster("hl", replicated=True),
    "replicated-by-trace": Cluster("hl", replicated=True, shard_by="trace"),
}


def _database(server, store_dir, name):
    server.store.client.command(f"CREATE DATABASE {name}")
    return clickhouse_connect.get_client(interface="chdb", path=str(store_dir.resolve()), database=name)


@pytest.fixture
def two_databases(server, store_dir, unique):
    names = [f"printed_{unique}", f"migrated_{unique}"]
    yield [_database(server, store_dir, n) for n in names], names
    for n in names:
        server.store.client.command(f"DROP DATABASE {n}")


def _show_create(client, database):
    names = [
        r[0]
        for r in client.query(
            "SELECT name FROM system.tables WHERE database = {d:String} ORDER BY name", parameters={"d": database}
        ).result_rows
    ]
    return {n: client.command(f"SHOW CREATE TABLE {n}").replace(f"{database}.", "") for n in names}


def test_the_printed_plain_schema_builds_the_store_the_migrations_build(capsys, two_databases):
    (printed, migrated), (printed_name, migrated_name) = two_databases
    code, out, err = run(capsys, "schema", "print")
    assert (code, err) == (0, "")
    for sql in out.split("\n;\n"):
        if sql.strip():
            printed.command(sql)
    # The migrated store: built by an older harborlight (schema 2), then brought up to date on start.
    ensure_schema(migrated)
    downgrade_to_schema_2(migrated)
    ensure_schema(migrated)
    built, upgraded = _show_create(printed, printed_name), _show_create(migrated, migrated_name)
    assert "agent_events_traces_mv" in built and "trial_rows" in built
    assert built == upgraded


def _formatted(client, sql: str) -> str:
    return client.query("SELECT formatQuery({q:String})", parameters={"q": sql}).result_rows[0][0]


@pytest.mark.parametrize("form", FORMS)
def test_every_generated_statement_is_read_by_the_engines_parser(server, form):
    cluster = FORMS[form]
    schema = cluster_schema(cluster) if cluster else plain_schema()
    for s in schema:
        formatted = _formatted(server.store.client, s.sql)
        assert (" ON CLUSTER hl" in formatted) == bool(cluster), formatted[:200]


def _sources(formatted: str) -> set[str]:
    return set(re.findall(r"\b(?:FROM|JOIN)\s+(\w+)", formatted))


@pytest.mark.parametrize("form", [f for f in FORMS if FORMS[f]])
def test_every_table_and_view_has_its_cluster_form(server, form):
    """Each table of the plain form: a local table on every node (Replicated with --replicated) and a
    Distributed front of the same name over it; each view: reads and writes local tables only, so what it
    derives lands on its row's shard. A table or view added without a cluster form fails here."""
    cluster = FORMS[form]
    formatted = {}
    for s in cluster_schema(cluster):
        formatted.setdefault(s.name, []).append((s.kind, _formatted(server.store.client, s.sql)))
    plain = plain_schema()
    tables = {s.name for s in plain if s.kind == "table"}
    for s in plain:
        if s.kind == "table":
            [(_, local)] = [f for f in formatted[local_name(s.name)] if f[0] == "table"]
            [(_, front)] = [f for f in formatted[s.name] if f[0] == "table"]
            engine = re.search(r"ENGINE = (\w+)(?:\(([^)]*))?", local)
            assert engine[1].endswith("MergeTree") and engine[1].startswith("Replicated") == cluster.replicated
            if cluster.replicated:
                assert engine[2].startswith(f"'{REPLICA_PATH}', '{{replica}}'")
            assert (
                f"AS {local_name(s.name)}\nENGINE = Distributed('hl', currentDatabase(), "
                f"'{local_name(s.name)}', " in front
            )
        elif s.kind == "view":
            [(_, view)] = formatted[s.name]
            target = re.search(r" TO (\w+)", view)[1]
            assert target == local_name(re.search(r" TO (\w+)", s.sql)[1])
            read = _sources(view) & (tables | {local_name(t) for t in tables})
            assert read and all(name.endswith("_local") for name in read), (s.name, read)
        elif s.kind == "alter":
            kinds = {name for name, forms in formatted.items() for kind, sql in forms if kind == "alter"}
            assert {s.name, local_name(s.name)} <= kinds
