"""How the committer's batches reach the store: grouped by signal and tenant, one INSERT each under the
batch's deduplication token, then the requests' digests recorded. Used by `serve` and by a local import."""

import logging
from itertools import groupby

from collector.errors import brief
from collector.memory_guard import MemoryGuard
from collector.wal import Record
from storage import Signal, Store, insert_requests, record_digests

log = logging.getLogger(__name__)


class BatchInserter:
    """Stores the committer's batches on a connection of its own (embedded chDB serialises the calls of
    one connection, so API queries never wait behind a commit), and hands the engine's cached memory
    back when the process grows toward its limit."""

    def __init__(self, store: Store, memory: MemoryGuard | None = None) -> None:
        self._memory = memory
        self._connection = store.another_connection()

    def __call__(self, records: list[Record], token: str) -> None:
        def key(r: Record) -> tuple[str, str]:
            return r.signal.value, r.tenant or ""

        for (signal, tenant), group in groupby(sorted(records, key=key), key=key):
            group = list(group)
            insert_requests(self._connection, Signal(signal), [r.payload for r in group], tenant or None,
                            nested=any(r.nested for r in group), retry_token=token)
        self._after_commit(records)

    def reachable(self) -> bool:
        try:
            self._connection.client.command("SELECT 1")
            return True
        except Exception:
            return False

    def _after_commit(self, records: list[Record]) -> None:
        """Bookkeeping once the rows are stored: a failure here must not fail (and so re-store) the batch."""
        try:
            record_digests(self._connection, [(r.digest, r.signal.value, r.items) for r in records])
        except Exception as exc:  # dedup of exporters' retries across restarts weakens for these; nothing is lost
            log.warning("could not record %d request digests: %s", len(records), brief(exc))
        if self._memory is not None and self._memory.wants_purge():
            try:
                self._connection.release_memory()
            except Exception as exc:
                log.warning("could not release engine memory: %s", brief(exc))

    def close(self) -> None:
        if self._connection.embedded:
            self._connection.client.close()
