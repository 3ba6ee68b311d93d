"""The single writer: group-commits concurrent requests and acknowledges each after its commit.

Requests wait in a bounded queue. The flush task wakes when the first one arrives, lingers while
requests keep arriving so they share one INSERT, commits everything queued (up to a batch limit) on a
thread of its own, and then resolves every waiting request. Those threads serve commits only: asyncio's
default pool is shared with whatever else the process runs there, and six slow queries used to take all
of its threads and hold every acknowledgement for as long as they ran. Up to `concurrent_commits` INSERTs run at once
(one by default: while it runs, the queue grows into a bigger next batch, and an INSERT's cost is mostly
fixed, so bigger batches are what makes ingest fast). A full queue refuses at once (QueueFull) instead of
growing. A batch holds at most `max_batch_items` items and `max_batch_bytes` of rows (what its requests
store once each item carries its resource and scope), so one commit's memory stays bounded. A failed
commit is tried again, the same batch with the same token, so blocks its failed attempt had already
written are skipped (the store's insert deduplication); if it keeps failing, each half of the batch is
committed on its own, and so on down to single requests, so a request that would succeed alone is not
failed by a neighbour; a request that fails alone fails (StoreDown), so nothing is acknowledged that is
not stored. Identical request bodies already committed are acknowledged without storing twice.
"""

import asyncio
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from collector.errors import QueueFull, StoreDown, brief
from collector.limits import Limits
from storage import Signal

log = logging.getLogger(__name__)


@dataclass
class Pending:
    signal: Signal
    payload: bytes
    items: int
    digest: bytes
    tenant: str | None = None
    nested: bool = True  # may hold array/kvlist values (storage.nested_values); False allows the cheaper decoding
    expanded_bytes: int = 0  # what its rows hold (collector.validate.Checked.expanded_bytes)
    done: asyncio.Future = field(default_factory=lambda: asyncio.get_running_loop().create_future())


# commit(pending) stores every payload and records the digests; it runs in a worker thread. Called
# again with the same batch after a failure: it must make that retry idempotent.
Commit = Callable[[list[Pending]], None]


@dataclass
class WriterStats:
    batches: int = 0
    requests: int = 0
    items: int = 0
    commit_seconds: float = 0.0
    failed_batches: int = 0  # batches whose requests failed alone too
    retried_commits: int = 0
    split_batches: int = 0  # batches that kept failing and were committed in halves


@dataclass(frozen=True)
class WriterLimits:
    max_queued_items: int = 100_000
    max_batch_items: int = 10_000
    max_batch_bytes: int = Limits.max_expanded_request_bytes  # one request at the most fills a batch alone
    linger_seconds: float = 0.005  # a commit starts once no request has arrived for this long,
    linger_rounds: int = 20  # or after this many lingers, so a steady trickle is still committed
    concurrent_commits: int = 1
    remembered_digests: int = 100_000
    commit_attempts: int = 3
    retry_backoff_seconds: float = 0.25  # doubled after each failed attempt


class Writer:
    def __init__(self, commit: Commit, limits: WriterLimits = WriterLimits(), known: Iterable[bytes] = ()) -> None:
        self._commit = commit
        self._limits = limits
        self._queue: deque[Pending] = deque()
        self._queued_items = 0
        self._wake = asyncio.Event()
        self._arrived = asyncio.Event()
        self._closing = False
        self._committed: OrderedDict[bytes, None] = OrderedDict((d, None) for d in known)
        self._in_flight: dict[bytes, Pending] = {}
        self._task: asyncio.Task | None = None
        self._threads: ThreadPoolExecutor | None = None
        self.stats = WriterStats()
        # Called on the event loop after each successful commit with its batch (the live feed); must be cheap.
        self.on_commit: Callable[[list[Pending]], None] | None = None

    async def __aenter__(self) -> "Writer":
        self._threads = ThreadPoolExecutor(self._limits.concurrent_commits, thread_name_prefix="harborlight-commit")
        self._task = asyncio.create_task(self._run(), name="harborlight-writer")
        return self

    async def __aexit__(self, *exc) -> None:
        """Drains: everything queued is committed (or failed) before the writer stops."""
        self._closing = True
        self._wake.set()
        if self._task:
            await self._task
        if self._threads:
            self._threads.shutdown()

    @property
    def queued_items(self) -> int:
        return self._queued_items

    async def write(
        self, signal: Signal, payload: bytes, items: int, digest: bytes, tenant: str | None = None,
        nested: bool = True, expanded_bytes: int = 0,
    ) -> bool:
        """Returns after the payload is committed: True if stored now, False if it was a duplicate."""
        if digest in self._committed:
            return False
        if (twin := self._in_flight.get(digest)) is not None:
            await asyncio.shield(twin.done)
            return False
        if self._closing:
            raise StoreDown("harborlight is shutting down")
        if self._queue and self._queued_items + items > self._limits.max_queued_items:
            raise QueueFull(f"ingest queue is full ({self._queued_items} items waiting); retry later")
        pending = Pending(signal, payload, items, digest, tenant, nested, expanded_bytes=expanded_bytes)
        self._queue.append(pending)
        self._in_flight[digest] = pending
        self._queued_items += items
        self._wake.set()
        self._arrived.set()
        await asyncio.shield(pending.done)
        return True

    def _take_batch(self) -> list[Pending]:
        batch, items, size = [], 0, 0
        while self._queue:
            p = self._queue[0]
            if batch and (items + p.items > self._limits.max_batch_items
                          or size + p.expanded_bytes > self._limits.max_batch_bytes):
                break
            batch.append(self._queue.popleft())
            items += p.items
            size += p.expanded_bytes
        self._queued_items -= items
        return batch

    async def _run(self) -> None:
        slots = asyncio.Semaphore(self._limits.concurrent_commits)
        commits: set[asyncio.Task] = set()
        while True:
            await self._wake.wait()
            if not self._queue:
                self._wake.clear()
                if self._closing:
                    await asyncio.gather(*commits)
                    return
                continue
            await slots.acquire()  # while every slot is busy, the queue grows into a bigger next batch
            await self._linger()
            batch = self._take_batch()
            if not batch:
                slots.release()
                continue
            task = asyncio.create_task(self._commit_batch(batch))
            task.add_done_callback(lambda t: (slots.release(), commits.discard(t)))
            commits.add(task)

    async def _linger(self) -> None:
        """Waits while requests keep arriving, so they join this commit. Under load they come in bursts:
        the clients whose requests the last commit acknowledged send their next ones at once."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._limits.linger_seconds * self._limits.linger_rounds
        while not self._closing and self._queued_items < self._limits.max_batch_items:
            self._arrived.clear()
            remaining = deadline - loop.time()
            if remaining <= 0:
                return
            try:
                await asyncio.wait_for(self._arrived.wait(), min(self._limits.linger_seconds, remaining))
            except TimeoutError:
                return  # a quiet gap: nobody else is sending now

    async def _commit_batch(self, batch: list[Pending]) -> None:
        started = time.perf_counter()
        failures = await self._commit_or_split(batch, self._limits.commit_attempts)
        for p, exc in failures:  # the store refused these even alone: none of them is acknowledged
            self._in_flight.pop(p.digest, None)
            if not p.done.done():
                p.done.set_exception(StoreDown(f"store unavailable, retry later: {brief(exc)}"))
        if failures:
            self.stats.failed_batches += 1
            log.warning("commit of %d of %d requests failed: %s", len(failures), len(batch), brief(failures[0][1]))
        failed = {id(p) for p, _ in failures}
        stored = [p for p in batch if id(p) not in failed]
        if not stored:
            return
        self.stats.batches += 1
        self.stats.requests += len(stored)
        self.stats.items += sum(p.items for p in stored)
        self.stats.commit_seconds += time.perf_counter() - started
        for p in stored:
            self._in_flight.pop(p.digest, None)
            self._remember(p.digest)
            if not p.done.done():
                p.done.set_result(None)
        if self.on_commit is not None:
            try:
                self.on_commit(stored)
            except Exception:  # a watcher's trouble never reaches ingest
                log.exception("on_commit callback failed")

    async def _commit_or_split(self, batch: list[Pending], attempts: int) -> list[tuple[Pending, Exception]]:
        """Commits the batch; if that keeps failing, each half on its own (one attempt each). Returns the
        requests that failed alone, with their errors."""
        try:
            await self._commit_with_retries(batch, attempts)
            return []
        except Exception as exc:
            if len(batch) == 1:
                return [(batch[0], exc)]
            self.stats.split_batches += 1
            log.warning("commit of %d requests failed, committing them in halves: %s", len(batch), brief(exc))
        half = len(batch) // 2
        return await self._commit_or_split(batch[:half], 1) + await self._commit_or_split(batch[half:], 1)

    async def _commit_with_retries(self, batch: list[Pending], attempts: int) -> None:
        backoff = self._limits.retry_backoff_seconds
        for attempt in range(1, attempts + 1):
            try:
                await asyncio.get_running_loop().run_in_executor(self._threads, self._commit, batch)
                return
            except Exception as exc:
                if attempt == attempts:
                    raise
                self.stats.retried_commits += 1
                log.warning("commit of %d requests failed (attempt %d), retrying: %s",
                            len(batch), attempt, brief(exc))
                await asyncio.sleep(backoff)
                backoff *= 2

    def _remember(self, digest: bytes) -> None:
        self._committed[digest] = None
        if len(self._committed) > self._limits.remembered_digests:
            self._committed.popitem(last=False)
