"""The writer acknowledges a request once it is in the write-ahead log, and the committer stores it
after: a slow or absent store does not hold acknowledgements back until the log is full."""

import asyncio
from contextlib import asynccontextmanager

import grpc
import pytest

from harborlight.commit.committer import CommitLimits, Committer
from harborlight.commit.writer import Writer
from harborlight.ingest.errors import grpc_code, http_status
from harborlight.store import Signal
from harborlight.wal import FsyncPolicy, WriteAheadLog
from harborlight.write_errors import LogFull, StoreDown
from tests.collector.recording_store import RecordingStore

QUICK = CommitLimits(retry_backoff_seconds=0.01, max_backoff_seconds=0.05)


def _digest(i: int) -> bytes:
    return i.to_bytes(16, "big")


@asynccontextmanager
async def _writer(tmp_path, store: RecordingStore, max_bytes: int = 1 << 20, known=(), policy: str = "never"):
    """A writer on a log in tmp_path, as `serve` wires them."""
    with WriteAheadLog(tmp_path, FsyncPolicy.parse(policy), max_bytes) as wal:
        async with Writer(wal, Committer(wal, store.insert, store.reachable, QUICK), known) as writer:
            yield writer


def test_acknowledged_before_the_store_commits_and_stored_after(tmp_path):
    store = RecordingStore()
    store.gate.clear()  # the store is slow

    async def main():
        async with _writer(tmp_path, store) as writer:
            assert await writer.write(Signal.traces, b"r1", 10, _digest(1)) is True
            assert store.stored == []  # acknowledged while the store had nothing
            store.gate.set()
            assert await writer.caught_up(120) == 0
            assert store.stored == [b"r1"]

    asyncio.run(main())


@pytest.mark.parametrize("policy", ["always", "20", "never"])
def test_every_fsync_policy_acknowledges_and_stores(tmp_path, policy):
    store = RecordingStore()

    async def main():
        async with _writer(tmp_path, store, policy=policy) as writer:
            results = await asyncio.gather(*(writer.write(Signal.logs, b"p%d" % i, 1, _digest(i)) for i in range(20)))
            await writer.caught_up(120)
            return results

    assert asyncio.run(main()) == [True] * 20
    assert sorted(store.stored) == sorted(b"p%d" % i for i in range(20))


def test_requests_arriving_during_a_commit_share_the_next_one(tmp_path):
    store = RecordingStore()
    store.gate.clear()

    async def main():
        async with _writer(tmp_path, store) as writer:
            await writer.write(Signal.traces, b"first", 1, _digest(0))
            await asyncio.sleep(0.05)  # the committer took it and waits on the store
            for i in range(1, 20):
                await writer.write(Signal.traces, b"r%d" % i, 1, _digest(i))
            store.gate.set()
            await writer.caught_up(120)

    asyncio.run(main())
    assert [len(payloads) for payloads, _ in store.inserts] == [1, 19]


def test_a_full_log_refuses_retryably_and_loses_nothing_acknowledged(tmp_path):
    store = RecordingStore()
    store.gate.clear()

    async def main():
        async with _writer(tmp_path, store, max_bytes=5000) as writer:
            acknowledged = []
            for i in range(10):
                try:
                    await writer.write(Signal.traces, b"x" * 900 + bytes([i]), 1, _digest(i))
                    acknowledged.append(i)
                except LogFull as exc:
                    assert grpc_code(exc) == grpc.StatusCode.RESOURCE_EXHAUSTED and http_status(exc) == 429
            store.gate.set()
            await writer.caught_up(120)
            return acknowledged

    acknowledged = asyncio.run(main())
    assert 0 < len(acknowledged) < 10, "the log never filled: the test proves nothing"
    assert sorted(store.stored) == sorted(b"x" * 900 + bytes([i]) for i in acknowledged)


def test_a_request_seen_before_is_acknowledged_without_storing_it_twice(tmp_path):
    store = RecordingStore()

    async def main():
        async with _writer(tmp_path, store, known=[_digest(7)]) as writer:
            old = await writer.write(Signal.traces, b"stored before a restart", 1, _digest(7))
            new = await writer.write(Signal.traces, b"new", 1, _digest(8))
            again = await writer.write(Signal.traces, b"new", 1, _digest(8))  # still in the log, or stored
            await writer.caught_up(120)
            later = await writer.write(Signal.traces, b"new", 1, _digest(8))
            return old, new, again, later

    assert asyncio.run(main()) == (False, True, False, False)
    assert store.stored == [b"new"]


def test_a_read_that_cannot_wait_for_the_store_is_told_how_many_requests_it_may_miss(tmp_path):
    store = RecordingStore()
    store.gate.clear()

    async def main():
        async with _writer(tmp_path, store) as writer:
            for i in range(3):
                await writer.write(Signal.traces, b"r%d" % i, 1, _digest(i))
            unstored = await writer.caught_up(0.1)
            store.gate.set()
            return unstored, await writer.caught_up(120)

    assert asyncio.run(main()) == (3, 0)


def test_a_restart_stores_what_the_log_held_before_it_takes_requests(tmp_path):
    store = RecordingStore()
    store.down = True  # the first process's store is away: its requests stay in the log

    async def first():
        async with _writer(tmp_path, store) as writer:
            for i in range(5):
                await writer.write(Signal.traces, b"r%d" % i, 1, _digest(i))

    asyncio.run(first())
    assert store.stored == []
    store.down = False

    async def second():
        async with _writer(tmp_path, store) as writer:
            stored_on_start = list(store.stored)
            await writer.write(Signal.traces, b"new", 1, _digest(9))
            await writer.caught_up(120)
            return stored_on_start

    assert asyncio.run(second()) == [b"r%d" % i for i in range(5)]
    assert store.stored == [b"r%d" % i for i in range(5)] + [b"new"]


def test_after_shutdown_requests_are_refused_retryably(tmp_path):
    store = RecordingStore()

    async def main():
        async with _writer(tmp_path, store) as writer:
            pass
        with pytest.raises(StoreDown):
            await writer.write(Signal.traces, b"late", 1, _digest(1))

    asyncio.run(main())
