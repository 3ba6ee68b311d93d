"""How `import` and `export-job` reach the store: directly on --data-dir (or --clickhouse-url) when
no server holds it, else through a running server (--server URL). Their shared options, and the choice
between the two, live here; the local store and its ingest path are transfer/'s (local_store,
local_ingest). The store, the write path and the HTTP client are imported when a command runs, not when
its --help is asked for."""

import argparse
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import httpx

    from harborlight.transfer.sink import Sink


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


def server_client(args: argparse.Namespace, timeout: float = 300) -> "httpx.AsyncClient":
    import httpx

    headers = {"authorization": f"Bearer {args.token}"} if args.token else {}
    return httpx.AsyncClient(base_url=args.server.rstrip("/"), headers=headers, timeout=timeout)


@asynccontextmanager
async def sink_for(args: argparse.Namespace, command: str) -> AsyncIterator["Sink"]:
    """A running server's OTLP/HTTP endpoint, or the live ingest path on the local store."""
    from harborlight.transfer.local_ingest import local_sink
    from harborlight.transfer.sink import HttpSink

    if args.server:
        async with server_client(args) as client:
            yield HttpSink(client)
        return
    async with local_sink(args.data_dir, args.clickhouse_url, f"{command} ...") as sink:
        yield sink
