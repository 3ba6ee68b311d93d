"""The committer drains the log into the store in order, rides out an outage from the log, and never lets
one request the store refuses hold back the ones behind it."""

import asyncio

import pytest

from harborlight.commit.committer import CommitLimits, Committer
from harborlight.store import Signal
from harborlight.wal import FsyncPolicy, Record, WriteAheadLog
from harborlight.wal.record import framed_size
from harborlight.wal.segment import MAGIC, listed
from tests.collector.recording_store import RecordingStore
from tests.collector.wal.dying import run_and_die

QUICK = CommitLimits(retry_backoff_seconds=0.01, max_backoff_seconds=0.05)


def _record(i: int) -> Record:
    return Record(Signal.traces, None, i.to_bytes(16, "big"), 1, b"r%d" % i)


def _appended(tmp_path, n: int) -> WriteAheadLog:
    wal = WriteAheadLog(tmp_path, FsyncPolicy.parse("never"), 1 << 20)
    for i in range(n):
        wal.append(_record(i))
    return wal


def _drain(wal: WriteAheadLog, store: RecordingStore, limits: CommitLimits = QUICK) -> Committer:
    committer = Committer(wal, store.insert, store.reachable, limits)

    async def main():
        async with committer:  # stores what the log holds before it returns
            pass

    asyncio.run(main())
    return committer


def test_the_log_is_stored_in_order_in_batches_up_to_the_limits(tmp_path):
    store = RecordingStore()
    with _appended(tmp_path, 25) as wal:
        _drain(wal, store, CommitLimits(max_batch_items=10))
        assert wal.depth().requests == 0
    assert store.stored == [b"r%d" % i for i in range(25)]
    assert [len(p) for p, _ in store.inserts] == [10, 10, 5]


def test_a_failed_commit_is_tried_again_with_the_same_records_under_the_same_token(tmp_path):
    store = RecordingStore()
    store.failures_to_come = 2
    with _appended(tmp_path, 3) as wal:
        stats = _drain(wal, store).stats
    assert [p for p, _ in store.inserts] == [[b"r0", b"r1", b"r2"]] * 3
    assert len({token for _, token in store.inserts}) == 1
    assert store.stored == [b"r0", b"r1", b"r2"] and stats.retried_commits == 2


def test_an_outage_is_ridden_out_from_the_log_and_drained_after_it(tmp_path):
    store = RecordingStore()
    store.down = True

    async def main():
        with WriteAheadLog(tmp_path, FsyncPolicy.parse("never"), 1 << 20) as wal:
            async with Committer(wal, store.insert, store.reachable, QUICK) as committer:
                for i in range(5):
                    wal.append(_record(i))
                    committer.wake()
                await asyncio.sleep(0.3)  # the store is away: many attempts, nothing stored, nothing lost
                assert store.stored == [] and wal.depth().requests == 5 and len(store.inserts) > 3
                store.down = False
                await committer.stored(5)
                return committer.stats

    stats = asyncio.run(main())
    assert store.stored == [b"r%d" % i for i in range(5)]
    assert stats.outages == 1 and stats.split_batches == 0, "an outage is not the batch's fault"


def test_a_request_the_store_refuses_alone_is_set_aside_and_the_rest_is_stored(tmp_path):
    store = RecordingStore()
    store.refused = {b"r5"}
    with _appended(tmp_path, 8) as wal:
        stats = _drain(wal, store).stats
        [(seq, kept)] = listed(wal.rejected_dir)
        with WriteAheadLog(wal.rejected_dir, FsyncPolicy.parse("never"), 1 << 20) as rejected:
            assert [e.record for e in rejected.take(10, 10**9)] == [_record(5)]  # readable as the log is
    assert sorted(store.stored) == sorted(b"r%d" % i for i in range(8) if i != 5)
    assert stats.set_aside_requests == 1 and stats.split_batches >= 1


def test_after_a_crash_mid_commit_the_replay_stores_nothing_twice(tmp_path):
    """The store took the batch, the process died before the log heard of it: the replay's insert comes
    under the same token, and the store (as ClickHouse does) skips it."""
    store = RecordingStore()
    token = run_and_die(
        tmp_path,
        """
        for i in range(4):
            log.append(record(i))
        print(log.begin(log.take(10, 10**9)))  # then the store takes the batch, and the process dies
    """,
    ).strip()
    store.insert([_record(i) for i in range(4)], token)
    with WriteAheadLog(tmp_path, FsyncPolicy.parse("never"), 1 << 20) as wal:
        wal.append(_record(4))
        _drain(wal, store)
    assert store.stored == [b"r%d" % i for i in range(5)]


def test_the_committer_goes_on_after_an_append_seals_the_segment_it_is_committing(tmp_path):
    """The committer takes everything up to the end of the active segment; while that batch is being
    stored an append seals the segment; the release deletes it under the committer's cursor. Everything
    after must still be stored (it once stopped for good with no error, the log filling and refusing)."""
    store = RecordingStore()
    store.gate.clear()

    async def main():
        with WriteAheadLog(tmp_path, FsyncPolicy.parse("never"), 1 << 20, segment_bytes=200) as wal:
            committer = Committer(wal, store.insert, store.reachable, QUICK)
            await committer.__aenter__()
            full = (wal.segment_bytes - len(MAGIC)) // framed_size(_record(0))
            for i in range(full):
                wal.append(_record(i))
            committer.wake()
            await asyncio.to_thread(store.entered.wait, 10)  # all taken: the cursor at the segment's end
            for i in range(full, 8):  # the segment is sealed, and more follow
                wal.append(_record(i))
                committer.wake()
            store.gate.set()
            # A stalled committer would never let __aexit__ return: wait a bounded time, and only then close.
            await asyncio.wait_for(committer.stored(8), 30)
            await committer.__aexit__(None, None, None)

    asyncio.run(main())
    assert store.stored == [b"r%d" % i for i in range(8)]


def _clickhouse_error(code: int, name: str, text: str) -> Exception:
    """The exception clickhouse-connect raises for a ClickHouse error (as chDB's full disk raised it)."""
    from clickhouse_connect.driver.exceptions import DatabaseError

    exc = DatabaseError(f"Code: {code}. DB::Exception: {text}. ({name})")
    exc.code, exc.name = code, name
    return exc


STORE_WIDE = [
    _clickhouse_error(243, "NOT_ENOUGH_SPACE", "Cannot reserve 1.00 MiB, not enough space"),
    _clickhouse_error(241, "MEMORY_LIMIT_EXCEEDED", "(total) memory limit exceeded"),
    _clickhouse_error(252, "TOO_MANY_PARTS", "Too many parts (300) in table"),
    _clickhouse_error(159, "TIMEOUT_EXCEEDED", "Timeout exceeded: elapsed 30 seconds"),
    OSError(28, "No space left on device"),  # the spool file the embedded store reads
    TimeoutError("timed out"),
]


@pytest.mark.parametrize("fault", STORE_WIDE, ids=lambda e: type(e).__name__ + ":" + str(e)[:24])
def test_a_store_wide_fault_is_waited_out_and_never_sets_a_request_aside(tmp_path, fault):
    """A full store disk once set every request aside (the store answered SELECT 1, so each failure counted as
    the batch's, down to single requests): the store's faults are tried again, the same batch under the same
    token, for as long as they last, also for a batch of one."""
    store = RecordingStore()
    store.fault = fault

    async def main():
        with WriteAheadLog(tmp_path, FsyncPolicy.parse("never"), 1 << 20) as wal:
            async with Committer(wal, store.insert, store.reachable, QUICK) as committer:
                wal.append(_record(0))
                committer.wake()
                while len(store.inserts) < 12:  # many times the attempts a refused batch gets
                    await asyncio.sleep(0.01)
                assert committer.stats.failing_since is not None and committer.stats.last_fault
                for i in range(1, 4):
                    wal.append(_record(i))
                    committer.wake()
                store.fault = None  # space is back
                await committer.stored(4)
                return committer.stats, wal.rejected_dir

    stats, rejected = asyncio.run(main())
    assert store.stored == [b"r%d" % i for i in range(4)]
    assert stats.set_aside_requests == 0 and stats.split_batches == 0 and not rejected.exists()
    assert len({token for payloads, token in store.inserts if payloads == [b"r0"]}) == 1
    assert stats.failing_since is None and stats.store_faults >= 12


def test_a_lone_request_is_set_aside_only_once_the_store_takes_other_writes(tmp_path):
    """A request failing alone with an error that names no store-wide fault, while the store takes no write at
    all (its probe fails too), stays in the log; once the probe goes through it is set aside."""
    store = RecordingStore()
    store.refused = {b"r0"}
    store.probe_fault = _clickhouse_error(1002, "UNKNOWN_EXCEPTION", "something went wrong")

    async def main():
        with WriteAheadLog(tmp_path, FsyncPolicy.parse("never"), 1 << 20) as wal:
            async with Committer(wal, store.insert, store.reachable, QUICK, probe=store.probe) as committer:
                wal.append(_record(0))
                committer.wake()
                while store.probes < 3:
                    await asyncio.sleep(0.01)
                assert committer.stats.set_aside_requests == 0 and not wal.rejected_dir.exists()
                store.probe_fault = None
                await committer.stored(1)
                return committer.stats, listed(wal.rejected_dir)

    stats, rejected = asyncio.run(main())
    assert stats.set_aside_requests == 1 and [seq for seq, _ in rejected] == [1]


def test_a_failed_release_tries_the_same_batch_again_and_never_skips_it(tmp_path):
    """The log's own trouble after a commit (here the flush of what was stored, before its segment goes) leaves
    the batch the committer's: nothing after it is recorded as stored before it is."""
    store = RecordingStore()
    failures = [OSError(28, "No space left on device")]

    def settle():
        if failures:
            raise failures.pop()

    async def main():
        with WriteAheadLog(tmp_path, FsyncPolicy.parse("never"), 1 << 20, segment_bytes=200, settle=settle) as wal:
            for i in range(6):
                wal.append(_record(i))
            committer = Committer(
                wal,
                store.insert,
                store.reachable,
                CommitLimits(max_batch_items=2, retry_backoff_seconds=0.01, max_backoff_seconds=0.05),
            )
            async with committer:
                pass
            return committer.stats, wal.depth()

    stats, depth = asyncio.run(main())
    assert sorted(set(store.stored)) == [b"r%d" % i for i in range(6)] and depth.requests == 0
    assert stats.batches == 3


def test_a_store_failing_at_start_does_not_hold_the_start_back(tmp_path):
    """The log's replay at start meets a full store disk: the committer starts (the receivers open, new requests
    are logged behind the old ones) and stores everything once the store takes writes again."""
    store = RecordingStore()
    store.fault = _clickhouse_error(243, "NOT_ENOUGH_SPACE", "Cannot reserve 1.00 MiB, not enough space")

    async def main():
        with _appended(tmp_path, 3) as wal:
            async with Committer(wal, store.insert, store.reachable, QUICK) as committer:
                assert store.stored == [] and wal.depth().requests == 3
                wal.append(_record(3))
                committer.wake()
                store.fault = None
                await committer.stored(4)
                return committer.stats

    stats = asyncio.run(main())
    assert store.stored == [b"r%d" % i for i in range(4)] and stats.set_aside_requests == 0
