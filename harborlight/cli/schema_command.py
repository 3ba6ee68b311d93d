"""`harborlight schema`: the schema's DDL, printed or applied; with --cluster, its form for a ClickHouse
cluster (local tables on every node, Distributed tables under the names harborlight and Grafana read). The
store's DDL builders (and with them the store) are imported when it runs, not for its --help."""

import argparse
import sys
from typing import Any

from harborlight.cli.command_help import add_command

# what --shard-by offers: the keys of harborlight.store.schema_ddl.SHARD_KEYS (tests/cli check they agree)
SHARD_BY = ("trial", "trace")


def _run(args: argparse.Namespace) -> int:
    from harborlight.store import StoreUnavailable, ensure_schema, open_client
    from harborlight.store.schema_cluster import apply_cluster_schema
    from harborlight.store.schema_ddl import Cluster, cluster_schema, plain_schema

    if args.cluster is None and (args.replicated or args.shard_by):
        raise ValueError("--replicated and --shard-by shape the cluster form: give --cluster NAME too")
    cluster = Cluster(args.cluster, args.replicated, args.shard_by or "trial") if args.cluster else None
    if args.action == "print":
        schema = cluster_schema(cluster, args.retention_days) if cluster else plain_schema(args.retention_days)
        # The ";" on a line of its own: a statement may end in a "--" comment.
        sys.stdout.write("".join(f"{s.sql.strip()}\n;\n\n" for s in schema))
        return 0
    if not args.clickhouse_url:
        raise ValueError("apply needs --clickhouse-url (a server of the cluster, or the one server)")
    try:
        store = open_client(clickhouse_url=args.clickhouse_url)
        if cluster:
            ran = len(apply_cluster_schema(store.client, cluster, args.retention_days))
        else:
            ensure_schema(store.client, args.retention_days)
            ran = len(plain_schema())
    except StoreUnavailable as exc:
        print(f"harborlight: {exc}", file=sys.stderr)
        return 1
    print(f"harborlight: {ran} statement(s) applied" + (f" on cluster {cluster.name}" if cluster else ""))
    return 0


def add_schema_command(commands: Any) -> None:
    parser = add_command(
        commands,
        "schema",
        "print or apply the store's DDL, for one server or a cluster",
        [
            "harborlight schema print",
            "harborlight schema --cluster harborlight --replicated print",
            "harborlight schema --cluster harborlight --replicated --shard-by trial apply "
            "--clickhouse-url http://default:secret@clickhouse-1:8123/default",
        ],
    )
    parser.add_argument("action", choices=("print", "apply"), help="write the DDL to stdout, or run it")
    parser.add_argument(
        "--cluster",
        default=None,
        metavar="NAME",
        help="the cluster form, ON CLUSTER NAME (a cluster of the servers' remote_servers)",
    )
    parser.add_argument(
        "--replicated",
        action="store_true",
        help="local tables are Replicated*MergeTree (needs Keeper and the {shard} / {replica} macros)",
    )
    parser.add_argument(
        "--shard-by",
        default=None,
        choices=SHARD_BY,
        help="what keeps rows together on one shard (default trial)",
    )
    parser.add_argument(
        "--retention-days",
        type=int,
        default=None,
        help="drop telemetry older than this many days (a TTL on each telemetry table)",
    )
    parser.add_argument("--clickhouse-url", default=None, help="where apply runs, e.g. http://user:pass@host:8123/db")
    parser.set_defaults(run=_run)
