"""One clickhouse-connect client for both modes: embedded chDB on a directory, or a server URL."""

import ctypes
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

import clickhouse_connect
from clickhouse_connect.driver.client import Client

# ClickHouse's `priority` setting: a query pauses while one with a smaller number runs (0 takes no part).
# Commits come first, so a heavy read never takes ingest's CPU; readers that anyone may make heavy (the SQL
# interface) run at READ_PRIORITY.
COMMIT_PRIORITY = 1
READ_PRIORITY = 2
_LIBC = ctypes.CDLL(None, use_errno=True)  # syncfs(2): os has sync() for every file system only


class StoreUnavailable(Exception):
    """The store cannot be opened or reached (a held data directory, a server that is down)."""


@dataclass(frozen=True)
class Store:
    client: Client
    embedded: bool
    # Where the embedded writer stages request bytes for the engine to read (tmpfs when there is one).
    spool_dir: Path | None = None
    data_dir: Path | None = None

    def release_memory(self) -> None:
        """Returns the embedded engine's freed-but-cached memory to the system (jemalloc keeps it
        otherwise, and the process's RSS stays at its high-water mark)."""
        if self.embedded:
            self.client.command("SYSTEM JEMALLOC PURGE")

    def compact(self, table: str) -> None:
        """Merges `table`'s parts into one per partition, now. After a pass that rewrote every row of a table read
        with FINAL (a new resolution), each row is there twice until the engine's merges catch up, which its
        selector may not do for hours, and every FINAL read merges both. Embedded store only: a server runs
        its own merges (a cluster's tables are its shards')."""
        if self.embedded:
            self.client.command(f"OPTIMIZE TABLE {table} FINAL")

    def settle(self) -> None:
        """Makes what was stored survive a power loss. The embedded engine writes its parts without
        fsync (as ClickHouse does by default): flush the data directory's file system. A server keeps
        its own promises (its fsync settings, its replicas)."""
        if self.embedded and self.data_dir is not None:
            fd = os.open(self.data_dir, os.O_RDONLY)
            try:
                if _LIBC.syncfs(fd) != 0:
                    raise OSError(ctypes.get_errno(), f"syncfs of {self.data_dir} failed")
            finally:
                os.close(fd)

    def another_connection(self) -> "Store":
        """A second connection to the same store, for work that should not queue behind this one's calls."""
        if not self.embedded:
            return self  # the HTTP client runs concurrent requests itself
        client = clickhouse_connect.get_client(interface="chdb", path=str(self.data_dir.resolve()))
        return Store(client=client, embedded=True, spool_dir=self.spool_dir, data_dir=self.data_dir)


def open_client(
    data_dir: Path | None = None, clickhouse_url: str | None = None, engine_memory_bytes: int | None = None
) -> Store:
    """`engine_memory_bytes` caps the embedded engine's memory (queries past it fail, retryably)."""
    if clickhouse_url:
        return Store(client=_server_client(clickhouse_url), embedded=False)
    assert data_dir is not None, "either a data directory or a ClickHouse URL"
    data_dir.mkdir(parents=True, exist_ok=True)
    with _engine_stderr() as engine_said:
        try:
            options = {"mark_cache_size": 64 << 20, "uncompressed_cache_size": 0}
            if engine_memory_bytes:
                options["max_server_memory_usage"] = engine_memory_bytes
            client = clickhouse_connect.get_client(interface="chdb", path=str(data_dir.resolve()), chdb_options=options)
        except Exception as exc:
            if "Cannot lock file" in engine_said():
                raise StoreUnavailable(
                    f"the data directory {data_dir} is held by another running harborlight; stop it or use "
                    "another --data-dir (other commands reach a running server with --server URL)"
                ) from exc
            raise StoreUnavailable(f"cannot open the data directory {data_dir}: {exc}") from exc
    return Store(client=client, embedded=True, spool_dir=_spool_dir(data_dir), data_dir=data_dir)


@contextmanager
def _engine_stderr() -> Iterator[Callable[[], str]]:
    """Captures what the engine writes to file descriptor 2 while it opens, so a failure is one line."""
    with tempfile.TemporaryFile() as sink:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(sink.fileno(), 2)

        def said() -> str:
            sink.seek(0)
            return sink.read().decode(errors="replace")

        try:
            yield said
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def _server_client(url: str) -> Client:
    parts = urlparse(url)
    try:
        return clickhouse_connect.get_client(
            host=parts.hostname or "localhost",
            port=parts.port or (8443 if parts.scheme == "https" else 8123),
            username=unquote(parts.username or "default"),
            password=unquote(parts.password or ""),
            database=parts.path.strip("/") or "default",
            secure=parts.scheme == "https",
            compress=False,
            # One client serves the writer's thread and the API's threads at once; a session would refuse that
            # ("concurrent queries within the same session"), and harborlight keeps no session state.
            autogenerate_session_id=False,
        )
    except Exception as exc:
        raise StoreUnavailable(f"cannot reach ClickHouse at {parts.hostname}:{parts.port}: {exc}") from exc


def _spool_dir(data_dir: Path) -> Path:
    shm = Path("/dev/shm")
    base = shm if shm.is_dir() else data_dir / "spool"
    spool = base / f"harborlight-{abs(hash(str(data_dir.resolve())))}"
    spool.mkdir(parents=True, exist_ok=True)
    return spool
