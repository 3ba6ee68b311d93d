"""Leaves a store's metrics tables as they were before the exporter's v0.160 metrics form (schema 8): gauge, sum
and histogram in the form of that time (these statement files, as harborlight/store/sql/ held them), no exponential
histogram or summary table."""

from pathlib import Path

from harborlight.store.schema_ddl import METRICS_FORM_VERSION, local_name

OLD_TABLES = ("otel_metrics_gauge", "otel_metrics_sum", "otel_metrics_histogram")
NEW_TABLES = ("otel_metrics_exponential_histogram", "otel_metrics_summary")


def old_statement(name: str) -> str:
    return (Path(__file__).parent / f"{name}.sql").read_text().replace("{ttl:TimeUnix}\n", "")


def downgrade_metrics(client) -> None:
    """`client`'s store, made by the current ensure_schema, back at the metrics tables of schema 8."""
    for name in OLD_TABLES + NEW_TABLES:
        client.command(f"DROP TABLE {name} SYNC")
    for name in OLD_TABLES:
        client.command(old_statement(name))
    client.command(f"DELETE FROM harborlight_schema_migrations WHERE Version >= {METRICS_FORM_VERSION}")


def downgrade_metrics_on_cluster(client, cluster: str, shard_key: str) -> None:
    """The same for a cluster store of one node (each statement as the node's DDL worker runs it): each old table
    a local table and a Distributed front over it."""
    for name in OLD_TABLES + NEW_TABLES:
        client.command(f"DROP TABLE {name} SYNC")
        client.command(f"DROP TABLE {local_name(name)} SYNC")
    for name in OLD_TABLES:
        client.command(old_statement(name).replace(f"EXISTS {name} ", f"EXISTS {local_name(name)} ", 1))
        client.command(
            f"CREATE TABLE {name} AS {local_name(name)} "
            f"ENGINE = Distributed('{cluster}', currentDatabase(), '{local_name(name)}', {shard_key})"
        )
    client.command(f"DELETE FROM {local_name('harborlight_schema_migrations')} WHERE Version >= {METRICS_FORM_VERSION}")
