"""The live ingest path in this process, for an import into a store no server holds: receiver -> writer ->
store, as `serve` wires it, with a write-ahead log of its own."""

import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from harborlight.commit.batch_inserter import BatchInserter
from harborlight.commit.committer import Committer
from harborlight.commit.ingest_log import recent_digests
from harborlight.commit.writer import REMEMBERED_DIGESTS, Writer
from harborlight.ingest.receiver import Receiver
from harborlight.transfer.errors import TransferError
from harborlight.transfer.local_store import open_local
from harborlight.transfer.sink import ReceiverSink, Sink
from harborlight.wal import FsyncPolicy, WriteAheadLog

IMPORT_LOG_BYTES = 1 << 30


@asynccontextmanager
async def local_sink(data_dir: Path | None, clickhouse_url: str | None, usage: str) -> AsyncIterator[Sink]:
    """The receiver of the local store (opened as open_local opens it, closed after): what it took is stored
    before the block ends, or the block ends in a TransferError."""
    store = open_local(data_dir, clickhouse_url, usage)
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
