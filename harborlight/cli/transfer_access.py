"""How `import` and `export-job` reach the store: directly on --data-dir (or --clickhouse-url) when
no server holds it, else through a running server (--server URL). Shared options and the local
ingest path (receiver -> writer -> store, as `serve` wires it) live here. The store, the write path and
the HTTP client are imported when a command runs, not when its --help is asked for."""

import argparse
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from harborlight.settings import Settings
from harborlight.transfer.errors import TransferError

if TYPE_CHECKING:
    import httpx

    from harborlight.store import Store
    from harborlight.transfer.sink import Sink

IMPORT_LOG_BYTES = 1 << 30


def add_store_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="use this embedded store directly (env HARBORLIGHT_DATA_DIR, default harborlight-data)",
    )
    parser.add_argument("--clickhouse-url", default=None, help="use a ClickHouse server directly")
    parser.add_argument("--server", default=None, help="go through a running harborlight, e.g. http://127.0.0.1:4318")
    parser.add_argument("--token", default=None, help="bearer token for --server when it requires one")


def open_local(args: argparse.Namespace, usage: str) -> "Store":
    """The store of --data-dir / --clickhouse-url, brought up to date as `serve` would on start; a store
    held by a running server is one line that suggests `harborlight <usage> --server`."""
    from harborlight.store import StoreUnavailable, ensure_schema, open_client

    settings = Settings.resolve({"data_dir": args.data_dir, "clickhouse_url": args.clickhouse_url})
    try:
        store = open_client(settings.data_dir, settings.clickhouse_url)
    except StoreUnavailable as exc:
        raise TransferError(f"{exc}; or run: harborlight {usage} --server http://HOST:PORT") from None
    ensure_schema(store.client, settings.retention_days)
    return store


def server_client(args: argparse.Namespace, timeout: float = 300) -> "httpx.AsyncClient":
    import httpx

    headers = {"authorization": f"Bearer {args.token}"} if args.token else {}
    return httpx.AsyncClient(base_url=args.server.rstrip("/"), headers=headers, timeout=timeout)


@asynccontextmanager
async def sink_for(args: argparse.Namespace, command: str) -> AsyncIterator["Sink"]:
    """A running server's OTLP/HTTP endpoint, or the live ingest path on the local store."""
    from harborlight.commit.batch_inserter import BatchInserter
    from harborlight.commit.committer import Committer
    from harborlight.commit.ingest_log import recent_digests
    from harborlight.commit.writer import REMEMBERED_DIGESTS, Writer
    from harborlight.ingest.receiver import Receiver
    from harborlight.transfer.sink import HttpSink, ReceiverSink
    from harborlight.wal import FsyncPolicy, WriteAheadLog

    if args.server:
        async with server_client(args) as client:
            yield HttpSink(client)
        return
    store = open_local(args, f"{command} ...")
    inserter = BatchInserter(store)
    try:
        # The import's own log, in a directory of its own (a server may hold the store's): drained, and
        # checked empty, before the import says it is done.
        with (
            tempfile.TemporaryDirectory(prefix="harborlight-import-") as directory,
            WriteAheadLog(Path(directory), FsyncPolicy(None), IMPORT_LOG_BYTES) as wal,
        ):
            committer = Committer(wal, inserter, inserter.reachable)
            async with Writer(wal, committer, recent_digests(store, REMEMBERED_DIGESTS)) as writer:
                yield ReceiverSink(Receiver(writer))
            if left := wal.depth().requests:
                raise TransferError(f"{left} requests could not be stored: {committer.stats.last_error}")
    finally:
        inserter.close()
        store.client.close()
