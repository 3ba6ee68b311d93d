"""The writer: acknowledges a request once it is in the write-ahead log, and leaves storing it to the
committer (harborlight/commit/committer.py), which drains the log into the store in large batches.

write() appends the request and returns once it is in the log, and on disk when the fsync policy says so
(harborlight/wal/durability.py); a full log refuses at once (LogFull: RESOURCE_EXHAUSTED / 429, retryable).
A request whose bytes (same tenant) were seen recently, in the log or already stored (before a restart
too: the store keeps the digests), is acknowledged as a duplicate without being appended again.
caught_up() is for reads that must see everything acknowledged before them: it waits for the committer.
"""

import asyncio
from collections import OrderedDict
from collections.abc import Callable, Iterable

from harborlight.commit.committer import CommitStats, Committer
from harborlight.store import Signal
from harborlight.wal import Depth, LogReport, Record, WriteAheadLog
from harborlight.write_errors import StoreDown

REMEMBERED_DIGESTS = 100_000


class Writer:
    def __init__(
        self,
        wal: WriteAheadLog,
        committer: Committer,
        known: Iterable[bytes] = (),
        remembered: int = REMEMBERED_DIGESTS,
    ) -> None:
        self._wal = wal
        self._committer = committer
        self._remembered = remembered
        self._seen: OrderedDict[bytes, int] = OrderedDict((d, 0) for d in known)  # digest -> its record (0: stored)
        self._last_seq = 0  # the last record this writer appended
        self._closing = False
        committer.on_commit.append(self._stored)

    async def __aenter__(self) -> "Writer":
        """Returns once whatever the log held from before is stored (the committer's replay)."""
        await self._committer.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        """Stops taking requests and lets the committer store what it can; the log keeps the rest."""
        self._closing = True
        await self._committer.__aexit__(*exc)

    @property
    def stats(self) -> CommitStats:
        return self._committer.stats

    def depth(self) -> Depth:
        return self._wal.depth()

    def log_report(self) -> LogReport:
        return self._wal.report()

    @property
    def on_commit(self) -> list[Callable[[list[Record]], None]]:
        """Called on the event loop with each commit's records (the live feed); must be cheap."""
        return self._committer.on_commit

    async def write(
        self,
        signal: Signal,
        payload: bytes,
        items: int,
        digest: bytes,
        tenant: str | None = None,
        nested: bool = True,
        expanded_bytes: int = 0,
    ) -> bool:
        """Returns once the request is in the log: True if appended now, False if it was a duplicate."""
        if (twin := self._seen.get(digest)) is not None:
            await self._durable(twin)
            return False
        if self._closing:
            raise StoreDown("harborlight is shutting down")
        seq = self._wal.append(Record(signal, tenant, digest, items, payload, nested, expanded_bytes))
        self._last_seq = seq
        self._remember(digest, seq)
        self._committer.wake()
        await self._durable(seq)
        return True

    async def caught_up(self, timeout: float | None = None) -> int:
        """Waits until every request acknowledged so far is stored; returns how many are not yet when
        `timeout` (seconds) passes first, else 0."""
        target = self._last_seq
        try:
            await asyncio.wait_for(self._committer.stored(target), timeout)
            return 0
        except TimeoutError:
            return max(0, target - self._committer.stored_through)

    async def _durable(self, seq: int) -> None:
        if seq and (flushed := self._wal.durable(seq)) is not None:
            await asyncio.wrap_future(flushed)

    def _stored(self, records: list[Record]) -> None:
        """Stored requests are remembered as such, those replayed from the log at start too."""
        for r in records:
            if r.digest in self._seen:
                self._seen[r.digest] = 0
            else:
                self._remember(r.digest, 0)

    def _remember(self, digest: bytes, seq: int) -> None:
        self._seen[digest] = seq
        if len(self._seen) > self._remembered:
            self._seen.popitem(last=False)
