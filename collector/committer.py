"""The committer: drains the write-ahead log into the store, in order, in batches as large as the store
likes (whatever arrived while the previous commit ran, up to the batch limits).

Each batch is begun in the log (its deduplication token recorded) before it is stored and released after,
so a crash at any point replays it under the same token and the store skips what of it had landed. A
failed commit is tried again, the same batch under the same token: for as long as the store is unreachable
(an outage: the log fills meanwhile, and refuses once full), or `attempts` times when it answers but
refuses the batch. Then each half is committed on its own, down to a single request, so one request the
store refuses does not hold back the ones behind it; a request refused alone is set aside in the log
directory's `rejected/` (in the log's own format) and counted, since it was acknowledged and cannot be
stored. Commits, log reads and deletions run on one thread of their own.
"""

import asyncio
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from collector.errors import brief
from collector.wal import Entry, Record, WriteAheadLog
from collector.wal.sequence_waiters import Waiter, resolve_through

log = logging.getLogger(__name__)

# insert(records, token) stores every record, under `token` for the store's deduplication; it runs in the
# committer's thread and is called again with the same records and token after a failure.
Insert = Callable[[list[Record], str], None]
# reachable() says whether the store answers at all (a failure then is the batch's, not an outage).
Reachable = Callable[[], bool]


@dataclass(frozen=True)
class CommitLimits:
    max_batch_items: int = 10_000
    max_batch_bytes: int = 256 << 20
    attempts: int = 3  # while the store answers but refuses
    retry_backoff_seconds: float = 0.25  # doubled after each failed attempt,
    max_backoff_seconds: float = 5.0  # up to this while the store is unreachable


@dataclass
class CommitStats:
    batches: int = 0
    requests: int = 0
    items: int = 0
    commit_seconds: float = 0.0
    retried_commits: int = 0
    split_batches: int = 0  # batches the store kept refusing, committed in halves
    set_aside_requests: int = 0  # refused alone: kept in rejected/, never stored
    outages: int = 0  # times the store stopped answering while a batch waited
    last_error: str | None = None


class Stopping(Exception):
    """Shutdown came while the store was failing: the log keeps the batch for the next start."""


class Committer:
    def __init__(self, wal: WriteAheadLog, insert: Insert, reachable: Reachable,
                 limits: CommitLimits = CommitLimits()) -> None:
        self._wal = wal
        self._insert = insert
        self._reachable = reachable
        self._limits = limits
        self._wake = asyncio.Event()
        self._closing = False
        self._task: asyncio.Task | None = None
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="harborlight-commit")
        self._waiters: list[Waiter] = []
        self.stored_through = 0  # every record up to this sequence number is stored (or set aside)
        self.stats = CommitStats()
        # Called on the event loop after each commit with its records (the writer's bookkeeping, the live
        # feed); must be cheap.
        self.on_commit: list[Callable[[list[Record]], None]] = []

    async def __aenter__(self) -> "Committer":
        """Starts after committing whatever the log held: a restart replays the log before new data."""
        await self.drain()
        self._task = asyncio.create_task(self._run(), name="harborlight-committer")
        return self

    async def __aexit__(self, *exc) -> None:
        """Commits what the log holds while the store takes it; what it refuses stays for the next start."""
        self._closing = True
        self._wake.set()
        if self._task is not None:
            await self._task
        self._thread.shutdown()

    def wake(self) -> None:
        """A record was appended."""
        self._wake.set()

    async def drain(self) -> None:
        """Commits until the log holds nothing unstored."""
        while await self._commit_next():
            pass

    async def stored(self, seq: int) -> None:
        """Returns once every record up to `seq` is stored."""
        if seq <= self.stored_through:
            return
        future = asyncio.get_running_loop().create_future()
        self._waiters.append((seq, future))
        await future

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            try:
                while await self._commit_next():
                    pass
            except Stopping:
                return
            except Exception as exc:  # the log's own trouble: reported, and tried again, never a silent stop
                self.stats.last_error = brief(exc)
                log.exception("committing the log failed; trying again")
                await asyncio.sleep(self._limits.max_backoff_seconds)
                self._wake.set()
            if self._closing:
                return

    async def _commit_next(self) -> bool:
        """Commits the next batch of the log; False when there was none."""
        entries = await self._in_thread(self._wal.take, self._limits.max_batch_items, self._limits.max_batch_bytes)
        if not entries:
            return False
        started = time.perf_counter()
        set_aside = await self._store(entries, self._limits.attempts)
        await self._in_thread(self._wal.release, entries[-1])
        stored = [e.record for e in entries if e.seq not in set_aside]
        self.stats.batches += 1
        self.stats.requests += len(stored)
        self.stats.items += sum(r.items for r in stored)
        self.stats.commit_seconds += time.perf_counter() - started
        self.stored_through = entries[-1].seq
        self._waiters = resolve_through(self._waiters, self.stored_through)
        for callback in self.on_commit:
            try:
                callback(stored)
            except Exception:  # a watcher's trouble never reaches ingest
                log.exception("on_commit callback failed")
        return True

    async def _store(self, entries: list[Entry], attempts: int) -> set[int]:
        """Stores the entries; returns the sequence numbers of those set aside."""
        token = await self._in_thread(self._wal.begin, entries)
        records = [e.record for e in entries]
        backoff, failures, down = self._limits.retry_backoff_seconds, 0, False
        while True:
            try:
                await self._in_thread(self._insert, records, token)
                if down:
                    log.warning("the store is back: committing the log again")
                return set()
            except Exception as exc:
                self.stats.last_error = brief(exc)
                if self._closing:
                    raise Stopping from exc
                if not await self._in_thread(self._reachable):
                    if not down:
                        self.stats.outages += 1
                        log.warning("the store is unreachable, keeping %d requests in the log until it is back: %s",
                                    len(entries), brief(exc))
                    down = True
                else:
                    failures += 1
                    if failures >= attempts:
                        break
                    log.warning("commit of %d requests failed (attempt %d), retrying: %s",
                                len(entries), failures, brief(exc))
                self.stats.retried_commits += 1
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, self._limits.max_backoff_seconds)
        if len(entries) == 1:
            await self._in_thread(self._wal.set_aside, entries[0], self.stats.last_error or "")
            self.stats.set_aside_requests += 1
            log.error("the store refused request %d alone %d times: set aside in %s (%s)",
                      entries[0].seq, attempts, self._wal.rejected_dir, self.stats.last_error)
            return {entries[0].seq}
        self.stats.split_batches += 1
        log.warning("commit of %d requests kept failing, committing them in halves: %s",
                    len(entries), self.stats.last_error)
        half = len(entries) // 2
        return await self._store(entries[:half], 1) | await self._store(entries[half:], 1)

    async def _in_thread(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self._thread, fn, *args)
