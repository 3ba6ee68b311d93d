"""The store of --data-dir or --clickhouse-url for the commands that reach it directly when no server holds it
(`import`, `export-job`, the query commands without --server): opened, and brought up to date as `serve` brings
it on start."""

from pathlib import Path

from harborlight.settings import Settings
from harborlight.store import Store, StoreUnavailable, ensure_schema, open_client
from harborlight.transfer.errors import TransferError


def open_local(data_dir: Path | None, clickhouse_url: str | None, usage: str) -> Store:
    """The store, up to date; a store held by a running server is one line that suggests
    `harborlight <usage> --server`."""
    settings = Settings.resolve({"data_dir": data_dir, "clickhouse_url": clickhouse_url})
    try:
        store = open_client(settings.data_dir, settings.clickhouse_url)
    except StoreUnavailable as exc:
        raise TransferError(f"{exc}; or run: harborlight {usage} --server http://HOST:PORT") from None
    ensure_schema(store.client, settings.retention_days)
    return store
