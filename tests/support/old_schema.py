"""Leaves a store as schema 2 left it (before RequestId): what an upgrade must bring up to date."""

from clickhouse_connect.driver.client import Client

from harborlight.store.schema import statement


def downgrade_to_schema_2(client: Client) -> None:
    """`client`'s store, made by the current ensure_schema, back at schema 2: no RequestId column, and
    views that do not write one."""
    for view in ("agent_events_traces_mv", "agent_events_logs_mv"):
        client.command(f"DROP VIEW {view}")
        client.command(statement(view).replace("    if(_d, NULL, _f_request_id) AS RequestId,\n", ""))
    client.command("ALTER TABLE agent_events DROP COLUMN RequestId")
    client.command("DELETE FROM harborlight_schema_migrations WHERE Version = 3")
