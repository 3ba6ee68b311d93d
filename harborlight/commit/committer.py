"""The committer: drains the write-ahead log into the store, in order, in batches as large as the store
likes (whatever arrived while the previous commit ran, up to the batch limits).

Each batch is begun in the log (its deduplication token recorded) before it is stored and released after,
so a crash at any point replays it under the same token and the store skips what of it had landed. A batch
taken from the log stays the committer's until it is released: a failure anywhere (the store, the log's
own checkpoint or release on a full disk) tries the same batch again, never the one after it.

Faults are transient until proven otherwise. A failure that is the store's as a whole (harborlight.write_errors
store_fault: no space, memory, too many parts, a timeout, the store unreachable, the spool file's disk
full) is tried again for as long as it lasts, the same batch under the same token, backing off; the log
fills meanwhile and the receivers refuse new requests retryably once it is full. A failure that may be the
batch's own is tried `attempts` times, then each half is committed on its own, down to a single request; a
request refused alone is set aside in the log directory's `rejected/` (in the log's own format, replayable
with `harborlight wal replay-rejected`) only once the store is seen taking other writes meanwhile (another
commit went through, or the insert's probe did): otherwise it is tried again. Commits, log reads and
deletions run on one thread of their own.
"""

import asyncio
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from harborlight.wal import Entry, Record, WriteAheadLog
from harborlight.wal.sequence_waiters import Waiter, resolve_through
from harborlight.write_errors import brief, store_fault

log = logging.getLogger(__name__)

# insert(records, token) stores every record, under `token` for the store's deduplication; it runs in the
# committer's thread and is called again with the same records and token after a failure. It may carry a
# `probe()`: a small write of no request's, which succeeds when the store takes writes at all.
Insert = Callable[[list[Record], str], None]
# reachable() says whether the store answers at all (a failure then is the batch's, not an outage).
Reachable = Callable[[], bool]
Probe = Callable[[], None]


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
    set_aside_requests: int = 0  # refused alone while other writes went through: kept in rejected/, not stored
    outages: int = 0  # times the store stopped taking the log's batches as a whole (down, disk full, ...)
    store_faults: int = 0  # failed attempts that were the store's as a whole (never a reason to set aside)
    failing_since: float | None = None  # Unix time of the first failure of the current run of them; None: committing
    consecutive_failures: int = 0
    last_fault: str | None = None  # the store-wide fault last seen (NOT_ENOUGH_SPACE, ENOSPC, ...)
    last_error: str | None = None


class Stopping(Exception):
    """Shutdown came while the store was failing: the log keeps the batch for the next start."""


class _StoreFailingAtStart(Exception):
    """The store cannot take writes while the log is replayed at start: the receivers open anyway (the log
    holds what it holds, in order), and the committer goes on trying in the background."""


class Committer:
    def __init__(
        self,
        wal: WriteAheadLog,
        insert: Insert,
        reachable: Reachable,
        limits: CommitLimits = CommitLimits(),
        probe: Probe | None = None,
    ) -> None:
        self._wal = wal
        self._insert = insert
        self._reachable = reachable
        self._probe = probe if probe is not None else getattr(insert, "probe", None)
        self._limits = limits
        self._wake = asyncio.Event()
        self._closing = False
        self._task: asyncio.Task[None] | None = None
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="harborlight-commit")
        self._waiters: list[Waiter] = []
        # The batch taken and not released yet, and what became of it once stored (the sequence numbers set
        # aside): a failure before its release tries it again, never the batch after it.
        self._pending: list[Entry] | None = None
        self._pending_set_aside: set[int] | None = None
        self._pending_started = 0.0
        self._successes = 0  # inserts that went through: what proves the store takes writes
        self._starting = False
        self.stored_through = 0  # every record up to this sequence number is stored (or set aside)
        self.stats = CommitStats()
        # Called on the event loop after each commit with its records (the writer's bookkeeping, the live
        # feed); must be cheap.
        self.on_commit: list[Callable[[list[Record]], None]] = []

    async def __aenter__(self) -> "Committer":
        """Starts after committing whatever the log held: a restart replays the log before new data. When the
        store cannot take writes then (its disk full, say), it starts at once and keeps trying in the
        background: new requests are logged behind the old ones."""
        self._starting = True
        try:
            await self.drain()
        except _StoreFailingAtStart:
            log.warning(
                "the store cannot take writes at start (%s): serving, with %d requests of the log still to store",
                self.stats.last_fault,
                self._wal.depth().requests,
            )
        finally:
            self._starting = False
        self._task = asyncio.create_task(self._run(), name="harborlight-committer")
        self._wake.set()
        return self

    async def __aexit__(self, *exc: object) -> None:
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
        """Commits until the log holds nothing unstored (the log's own faults waited out, as _run does)."""
        while True:
            try:
                while await self._commit_next():
                    pass
                return
            except Stopping:
                return
            except _StoreFailingAtStart:
                raise
            except Exception as exc:
                await self._log_trouble(exc)

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
            except Exception as exc:  # the log's own trouble (its disk full, say): reported, tried again
                if self._closing:
                    return
                await self._log_trouble(exc)
                self._wake.set()
            if self._closing:
                return

    async def _log_trouble(self, exc: Exception) -> None:
        """The log could not record the batch's progress (a checkpoint or a deletion failed): the same batch
        is tried again after a pause, never skipped."""
        self._failed(exc, store_fault(exc) or type(exc).__name__)
        log.error(
            "committing the log failed; trying the same batch again in %.1f s: %s",
            self._limits.max_backoff_seconds,
            brief(exc),
        )
        await asyncio.sleep(self._limits.max_backoff_seconds)

    async def _commit_next(self) -> bool:
        """Commits the next batch of the log (the one taken before, if it is not released yet); False when
        there was none."""
        entries = self._pending
        if entries is None:
            entries = await self._in_thread(self._wal.take, self._limits.max_batch_items, self._limits.max_batch_bytes)
            if not entries:
                return False
            self._pending, self._pending_set_aside, self._pending_started = entries, None, time.perf_counter()
        if self._pending_set_aside is None:
            self._pending_set_aside = await self._store(entries, self._limits.attempts, self._successes)
        set_aside = self._pending_set_aside
        await self._in_thread(self._wal.release, entries[-1])
        self._pending = self._pending_set_aside = None
        self._recovered()
        stored = [e.record for e in entries if e.seq not in set_aside]
        self.stats.batches += 1
        self.stats.requests += len(stored)
        self.stats.items += sum(r.items for r in stored)
        self.stats.commit_seconds += time.perf_counter() - self._pending_started
        self.stored_through = entries[-1].seq
        self._waiters = resolve_through(self._waiters, self.stored_through)
        for callback in self.on_commit:
            try:
                callback(stored)
            except Exception:  # a watcher's trouble never reaches ingest
                log.exception("on_commit callback failed")
        return True

    async def _store(self, entries: list[Entry], attempts: int, since: int) -> set[int]:
        """Stores the entries; returns the sequence numbers of those set aside. `since`: the count of
        successful inserts when the batch this one is part of first failed (later ones prove the store
        takes writes)."""
        token = await self._in_thread(self._wal.begin, entries)
        records = [e.record for e in entries]
        backoff, failures, fault_seen = self._limits.retry_backoff_seconds, 0, None
        while True:
            try:
                await self._in_thread(self._insert, records, token)
                self._successes += 1
                if fault_seen:
                    log.warning("the store takes the log's batches again (after %s)", fault_seen)
                return set()
            except Exception as exc:
                if self._closing:
                    raise Stopping from exc
                fault = store_fault(exc)
                if fault is None and not await self._in_thread(self._reachable):
                    fault = "unreachable"
                self._failed(exc, fault)
                if fault is not None:  # the store's as a whole: the same batch again, for as long as it lasts
                    if self._starting:
                        raise _StoreFailingAtStart from exc
                    if fault_seen is None:
                        log.warning(
                            "the store cannot take writes (%s): keeping %d requests in the log and trying again: %s",
                            fault,
                            len(entries),
                            brief(exc),
                        )
                    fault_seen = fault
                    failures = 0
                else:
                    failures += 1
                    if failures >= attempts:
                        if len(entries) > 1:
                            break
                        if await self._store_takes_writes(since):
                            return await self._set_aside(entries[0], attempts, token)
                        failures = 0  # not proven the request's: tried again
                    else:
                        log.warning(
                            "commit of %d requests failed (attempt %d), retrying: %s",
                            len(entries),
                            failures,
                            brief(exc),
                        )
                self.stats.retried_commits += 1
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, self._limits.max_backoff_seconds)
        self.stats.split_batches += 1
        log.warning(
            "commit of %d requests kept failing, committing them in halves: %s", len(entries), self.stats.last_error
        )
        half = len(entries) // 2
        return await self._store(entries[:half], 1, since) | await self._store(entries[half:], 1, since)

    async def _store_takes_writes(self, since: int) -> bool:
        """Whether the store took other writes since the failure began: another insert went through, or
        the insert's probe does now. Without a probe, that it answers."""
        if self._successes > since:
            return True
        if self._probe is None:
            return await self._in_thread(self._reachable)
        try:
            await self._in_thread(self._probe)
            return True
        except Exception as exc:
            fault = store_fault(exc) or f"probe: {type(exc).__name__}"
            self._failed(exc, fault)
            log.warning(
                "a request keeps failing and the store takes no other write either (%s): keeping it in the log: %s",
                fault,
                brief(exc),
            )
            return False

    async def _set_aside(self, entry: Entry, attempts: int, token: str) -> set[int]:
        await self._in_thread(self._wal.set_aside, entry, self.stats.last_error or "", token)
        self.stats.set_aside_requests += 1
        log.error(
            "the store refused request %d alone %d times while it took other writes: set aside in %s "
            "(%s); `harborlight wal replay-rejected` commits it again once the cause is fixed",
            entry.seq,
            attempts,
            self._wal.rejected_dir,
            self.stats.last_error,
        )
        return {entry.seq}

    def _failed(self, exc: Exception, fault: str | None) -> None:
        self.stats.last_error = brief(exc)
        self.stats.consecutive_failures += 1
        if self.stats.failing_since is None:
            self.stats.failing_since = time.time()
        if fault is not None:
            if self.stats.last_fault is None or self.stats.consecutive_failures == 1:
                self.stats.outages += 1
            self.stats.store_faults += 1
            self.stats.last_fault = fault

    def _recovered(self) -> None:
        self.stats.failing_since = None
        self.stats.consecutive_failures = 0
        self.stats.last_fault = None

    async def _in_thread[*Ts, R](self, fn: Callable[[*Ts], R], *args: *Ts) -> R:
        return await asyncio.get_running_loop().run_in_executor(self._thread, fn, *args)
