"""How the committer's batches reach the store: grouped by signal and tenant, one INSERT each under the
batch's deduplication token, each followed by its requests' digests. Used by `serve` and by a local import.

Per request, exactly once, through the store: a request whose digest the store already holds is not
stored again, whichever batch, process or receiver stored it first (an exporter that lost an
acknowledgement to a crash sends the same bytes again, maybe to another receiver behind the same load
balancer). A group's digests are written only after all of its rows, so a digest in the store means its
request is stored whole; a commit that died between the two is replayed by the log under the same token,
and the store skips the rows that had landed. On a server that other receivers share, a request not stored
yet is stored by the log that claimed it first (harborlight/commit/ingest_log.py owned_requests): two receivers that
commit the same request at once, or one that died after its rows landed and before its digest did, store it
once. Embedded, one process owns the store, and nobody else can hold the request.
"""

import logging
import uuid
from itertools import groupby

from harborlight.commit.ingest_log import owned_requests, record_digests, stored_digests
from harborlight.commit.memory_guard import MemoryGuard
from harborlight.commit.otlp_insert import insert_requests
from harborlight.store import Signal, Store
from harborlight.wal import Record
from harborlight.write_errors import brief

log = logging.getLogger(__name__)


def _group(r: Record) -> tuple[str, str]:
    return r.signal.value, r.tenant or ""


class BatchInserter:
    """Stores the committer's batches on a connection of its own (embedded chDB serialises the calls of
    one connection, so API queries never wait behind a commit), and hands the engine's cached memory
    back when the process grows toward its limit."""

    def __init__(self, store: Store, memory: MemoryGuard | None = None) -> None:
        self._memory = memory
        self._connection = store.another_connection()
        self.skipped_requests = 0  # already in the store when their batch came, or another log's: not stored here

    def __call__(self, records: list[Record], token: str) -> None:
        fresh = self._not_stored(records)
        if fresh and not self._connection.embedded:
            # The token names its write-ahead log first (harborlight/ingest/wal: `<log id>:<first>-<last>`).
            mine = owned_requests(self._connection, (r.digest for r in fresh), token.split(":", 1)[0])
            fresh = [r for r in fresh if r.digest in mine]
        for (signal, tenant), grouped in groupby(sorted(fresh, key=_group), key=_group):
            group = list(grouped)
            insert_requests(
                self._connection,
                Signal(signal),
                [r.payload for r in group],
                tenant or None,
                nested=any(r.nested for r in group),
                retry_token=token,
            )
            # A failure here fails the batch: it is tried again, and the rows above are skipped by their token.
            record_digests(self._connection, [(r.digest, r.signal.value, r.items) for r in group])
        self.skipped_requests += len(records) - len(fresh)
        self._release_memory()

    def _not_stored(self, records: list[Record]) -> list[Record]:
        """The records whose requests the store does not hold yet, each digest once."""
        seen = stored_digests(self._connection, (r.digest for r in records))
        fresh = []
        for r in records:
            if r.digest not in seen:
                seen.add(r.digest)
                fresh.append(r)
        return fresh

    def probe(self) -> None:
        """A small write of no request's (one row of the digest table, of a digest no request has): it goes
        through when the store takes writes at all, and fails as a full disk or a memory limit fails a commit.
        The committer asks it before setting a request aside as the request's own fault."""
        record_digests(self._connection, [(uuid.uuid4().bytes, "probe", 0)])

    def reachable(self) -> bool:
        try:
            self._connection.client.command("SELECT 1")
            return True
        except Exception:
            return False

    def _release_memory(self) -> None:
        if self._memory is not None and self._memory.wants_purge():
            try:
                self._connection.release_memory()
            except Exception as exc:  # the batch is stored; only the process's size waits
                log.warning("could not release engine memory: %s", brief(exc))

    def close(self) -> None:
        if self._connection.embedded:
            self._connection.client.close()
