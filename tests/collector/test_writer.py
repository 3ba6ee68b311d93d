"""The writer group-commits, acknowledges after the commit, refuses when full and never drops."""

import asyncio
import threading

import pytest

from collector.errors import QueueFull, StoreDown
from collector.writer import Pending, Writer, WriterLimits
from storage import Signal


class RecordingStore:
    """Stands in for ClickHouse: records each commit; a gate can hold commits to fill the queue."""

    def __init__(self) -> None:
        self.commits: list[list[bytes]] = []
        self.gate = threading.Event()
        self.gate.set()
        self.failures_to_come = 0
        self.attempts: list[list[bytes]] = []

    def commit(self, batch: list[Pending]) -> None:
        self.gate.wait(10)
        self.attempts.append([p.payload for p in batch])
        if self.failures_to_come:
            self.failures_to_come -= 1
            raise ConnectionError("server went away")
        self.commits.append([p.payload for p in batch])


def _digest(i: int) -> bytes:
    return i.to_bytes(16, "big")


def test_concurrent_requests_share_one_commit_and_each_is_acknowledged_after_it():
    store = RecordingStore()

    async def main():
        async with Writer(store.commit, WriterLimits(linger_seconds=0.05)) as writer:
            results = await asyncio.gather(*(writer.write(Signal.traces, b"r%d" % i, 10, _digest(i)) for i in range(20)))
            assert store.commits, "acknowledged before anything was committed"
            return results

    assert asyncio.run(main()) == [True] * 20
    assert len(store.commits) == 1 and len(store.commits[0]) == 20


def test_a_burst_of_requests_shares_one_commit_even_when_it_outlasts_the_linger():
    # Under load, requests come in bursts: the clients the last commit acknowledged send their next
    # ones. The writer waits while they keep arriving (gaps below the linger), not one linger only.
    store = RecordingStore()

    async def main():
        async with Writer(store.commit, WriterLimits(linger_seconds=0.1)) as writer:
            tasks = []
            for i in range(8):  # 8 requests 20 ms apart: ~0.14 s, longer than one 0.1 s linger
                tasks.append(asyncio.create_task(writer.write(Signal.traces, b"b%d" % i, 10, _digest(i))))
                await asyncio.sleep(0.02)
            await asyncio.gather(*tasks)

    asyncio.run(main())
    assert [len(c) for c in store.commits] == [8]


def test_a_steady_trickle_is_still_committed_after_at_most_linger_rounds_lingers():
    store = RecordingStore()

    async def main():
        limits = WriterLimits(linger_seconds=0.05, linger_rounds=5)  # commits at the latest 0.25 s after it wakes
        async with Writer(store.commit, limits) as writer:
            first = asyncio.create_task(writer.write(Signal.traces, b"t0", 1, _digest(0)))
            i = 0
            while not first.done():  # a request every 10 ms, never a quiet gap
                i += 1
                asyncio.create_task(writer.write(Signal.traces, b"t%d" % i, 1, _digest(i)))
                await asyncio.sleep(0.01)
                assert i < 100, "the first request was never committed"
            return i

    sent = asyncio.run(main())
    assert 8 <= sent <= 60  # waited for the trickle (longer than one linger), but not for ever


def test_a_full_queue_refuses_with_queue_full_and_loses_nothing_accepted():
    store = RecordingStore()
    store.gate.clear()  # the store is slow: commits wait

    async def main():
        async with Writer(store.commit, WriterLimits(max_queued_items=50, max_batch_items=50, linger_seconds=0, concurrent_commits=1)) as w:
            first = asyncio.create_task(w.write(Signal.traces, b"first", 50, _digest(0)))
            await asyncio.sleep(0.05)  # the first batch is now being committed (held by the gate)
            queued = [asyncio.create_task(w.write(Signal.traces, b"q%d" % i, 10, _digest(i + 1))) for i in range(5)]
            await asyncio.sleep(0.01)
            with pytest.raises(QueueFull):
                await w.write(Signal.traces, b"refused", 10, _digest(99))
            store.gate.set()
            return await asyncio.gather(first, *queued)

    assert asyncio.run(main()) == [True] * 6
    stored = [payload for commit in store.commits for payload in commit]
    assert sorted(stored) == sorted([b"first"] + [b"q%d" % i for i in range(5)])
    assert b"refused" not in stored


_QUICK_RETRIES = WriterLimits(linger_seconds=0, commit_attempts=3, retry_backoff_seconds=0.01)


def test_a_commit_that_fails_once_is_retried_with_the_same_batch_and_acknowledged():
    store = RecordingStore()
    store.failures_to_come = 1

    async def main():
        async with Writer(store.commit, _QUICK_RETRIES) as writer:
            stored = await writer.write(Signal.logs, b"payload", 3, _digest(1))
            return stored, writer.stats

    stored, stats = asyncio.run(main())
    assert stored is True
    assert store.attempts == [[b"payload"], [b"payload"]]  # the same batch again, so its token is the same
    assert stats.retried_commits == 1 and stats.failed_batches == 0


def test_a_commit_failing_every_attempt_fails_its_requests_as_retryable_and_a_retry_is_stored():
    store = RecordingStore()
    store.failures_to_come = 3

    async def main():
        async with Writer(store.commit, _QUICK_RETRIES) as writer:
            with pytest.raises(StoreDown):
                await writer.write(Signal.logs, b"payload", 3, _digest(1))
            return await writer.write(Signal.logs, b"payload", 3, _digest(1))

    assert asyncio.run(main()) is True
    assert len(store.attempts) == 4
    assert store.commits == [[b"payload"]]


def test_a_committed_digest_is_acknowledged_without_storing_again():
    store = RecordingStore()

    async def main():
        async with Writer(store.commit, WriterLimits(linger_seconds=0), known=[_digest(7)]) as writer:
            old = await writer.write(Signal.traces, b"seen before restart", 1, _digest(7))
            new = await writer.write(Signal.traces, b"new", 1, _digest(8))
            again = await writer.write(Signal.traces, b"new", 1, _digest(8))
            return old, new, again

    assert asyncio.run(main()) == (False, True, False)
    assert store.commits == [[b"new"]]


def test_shutdown_drains_everything_queued():
    store = RecordingStore()

    async def main():
        writer = Writer(store.commit, WriterLimits(linger_seconds=1.0))
        await writer.__aenter__()
        tasks = [asyncio.create_task(writer.write(Signal.traces, b"d%d" % i, 1, _digest(i))) for i in range(3)]
        await asyncio.sleep(0)
        await writer.__aexit__(None, None, None)
        return await asyncio.gather(*tasks)

    assert asyncio.run(main()) == [True, True, True]
    assert sum(len(c) for c in store.commits) == 3


def test_a_request_that_fails_every_commit_does_not_fail_the_neighbours_of_its_batch():
    """The store refuses any commit holding the poisoned request (as a commit past the engine's memory
    fails): its batch is committed in halves, down to single requests, and only that request fails."""
    store = RecordingStore()
    poisoned = b"p3"

    def commit(batch: list[Pending]) -> None:
        if any(p.payload == poisoned for p in batch):
            store.attempts.append([p.payload for p in batch])
            raise MemoryError("memory limit exceeded")
        store.commit(batch)

    async def main():
        async with Writer(commit, WriterLimits(linger_seconds=0.05, commit_attempts=2, retry_backoff_seconds=0.01)) as w:
            return await asyncio.gather(*(w.write(Signal.traces, b"p%d" % i, 1, _digest(i)) for i in range(8)),
                                        return_exceptions=True)

    results = asyncio.run(main())
    assert [type(r).__name__ for r in results] == ["bool"] * 3 + ["StoreDown"] + ["bool"] * 4
    assert "memory limit exceeded" in str(results[3])
    stored = sorted(payload for c in store.commits for payload in c)
    assert stored == sorted(b"p%d" % i for i in range(8) if i != 3)  # each neighbour once


def test_a_batch_holds_no_more_expanded_bytes_than_its_limit():
    store = RecordingStore()
    store.gate.clear()  # the first commit waits, so the rest queue up together

    async def main():
        async with Writer(store.commit, WriterLimits(linger_seconds=0, max_batch_bytes=100)) as writer:
            first = asyncio.create_task(writer.write(Signal.traces, b"first", 1, _digest(99), expanded_bytes=10))
            await asyncio.sleep(0.05)
            rest = [asyncio.create_task(writer.write(Signal.traces, b"r%d" % i, 1, _digest(i), expanded_bytes=40))
                    for i in range(5)]
            await asyncio.sleep(0.05)
            store.gate.set()
            await asyncio.gather(first, *rest)

    asyncio.run(main())
    assert [len(c) for c in store.commits] == [1, 2, 2, 1]  # 40 + 40 fit in 100, a third would not
