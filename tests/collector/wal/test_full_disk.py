"""The write-ahead log on a real full file system (a small tmpfs, filled): an append its disk refuses is
answered retryably and leaves nothing behind; a rotation that cannot create its segment is undone; the
committer records progress and releases segments on a disk with no free byte (which is what frees it); and
every record acknowledged is read back exactly once, after space returns, without a restart and after one."""

import asyncio

import grpc
import pytest

from harborlight.commit.committer import CommitLimits, Committer
from harborlight.ingest.errors import grpc_code, http_status
from harborlight.store import Signal
from harborlight.wal import FsyncPolicy, Record, WriteAheadLog
from harborlight.wal.record import framed_size
from harborlight.wal.segment import MAGIC, listed
from harborlight.write_errors import LogUnwritable
from tests.collector.recording_store import RecordingStore
from tests.support.full_disk import fill, free, small_tmpfs

ALWAYS = FsyncPolicy.parse("always")
QUICK = CommitLimits(retry_backoff_seconds=0.01, max_backoff_seconds=0.05)


def _record(i: int) -> Record:
    """Larger than a page: an append always needs new space on the file system."""
    return Record(Signal.traces, None, i.to_bytes(16, "big"), 1, i.to_bytes(4, "big") * 2500)


SIZE = framed_size(_record(0))


def _ids(log: WriteAheadLog) -> list[int]:
    ids = []
    while batch := log.take(10**9, 10**12):
        ids += [int.from_bytes(e.record.digest, "big") for e in batch]
    return ids


def _refused_retryably(log: WriteAheadLog, record: Record) -> LogUnwritable:
    with pytest.raises(LogUnwritable) as refused:
        seq = log.append(record)
        log.durable(seq)
    exc = refused.value
    assert grpc_code(exc) == grpc.StatusCode.UNAVAILABLE and http_status(exc) == 503 and exc.retry_after
    return exc


def test_an_append_on_a_full_disk_is_refused_retryably_and_leaves_no_partial_record():
    with small_tmpfs(512) as disk:
        wal_dir = disk / "wal"
        acknowledged = []
        with WriteAheadLog(wal_dir, ALWAYS, 64 << 20, segment_bytes=16 << 20) as log:
            for i in range(3):
                log.durable(log.append(_record(i))).result(10)
                acknowledged.append(i)
            filler = fill(disk)
            [(_, active)] = listed(wal_dir)
            size = active.stat().st_size
            for i in range(3, 6):
                _refused_retryably(log, _record(i))
            assert active.stat().st_size == size, "a refused append left bytes in the segment"
            assert log.report().refused_disk == 3
            free(filler)
            for i in range(6, 9):  # space is back: no restart needed
                log.durable(log.append(_record(i))).result(10)
                acknowledged.append(i)
            assert _ids(log) == acknowledged
        with WriteAheadLog(wal_dir, ALWAYS, 64 << 20) as log:
            assert log.recovered.damage == []
            assert _ids(log) == acknowledged


def test_a_rotation_on_a_full_disk_is_undone_and_appends_go_on_once_space_is_back():
    """It once left a 0-byte segment, and every later append failed with FileExistsError until a restart."""
    with small_tmpfs(512) as disk:
        wal_dir = disk / "wal"
        acknowledged = []
        with WriteAheadLog(wal_dir, ALWAYS, 64 << 20, segment_bytes=len(MAGIC) + 2 * SIZE + 10) as log:
            for i in range(2):  # the segment holds two: the third append rotates
                log.durable(log.append(_record(i))).result(10)
                acknowledged.append(i)
            filler = fill(disk)
            for i in range(2, 5):
                _refused_retryably(log, _record(i))
            assert [p.stat().st_size for _, p in listed(wal_dir)] == [len(MAGIC) + 2 * SIZE], (
                "the failed rotation left a segment behind"
            )
            free(filler)
            for i in range(5, 10):
                log.durable(log.append(_record(i))).result(10)
                acknowledged.append(i)
            assert _ids(log) == acknowledged
        with WriteAheadLog(wal_dir, ALWAYS, 64 << 20) as log:
            assert log.recovered.damage == [] and _ids(log) == acknowledged


def test_the_log_filling_its_own_disk_is_drained_on_that_full_disk_and_takes_appends_again():
    """No filler: the log itself fills the disk (its size limit above the disk's). The committer must still
    record its progress (the checkpoint, written in place: the old one was written aside and renamed, which
    failed with ENOSPC, and the committer then moved past the batch it had not stored) and release what it
    stored, which deletes segments and frees the disk; the log is opened again while full on the way."""
    store = RecordingStore()
    with small_tmpfs(1024) as disk:
        wal_dir = disk / "wal"
        acknowledged = []
        with WriteAheadLog(wal_dir, ALWAYS, 1 << 30, segment_bytes=8 * SIZE) as log:
            for i in range(10_000):
                try:
                    log.durable(log.append(_record(i))).result(10)
                except LogUnwritable:
                    break
                acknowledged.append(i)
            assert 20 < len(acknowledged) < 10_000
            _refused_retryably(log, _record(10_001))
        # A restart on the full disk: opening needs no new space.
        with WriteAheadLog(wal_dir, ALWAYS, 1 << 30, segment_bytes=8 * SIZE) as log:
            _refused_retryably(log, _record(10_002))

            async def main():
                async with Committer(log, store.insert, store.reachable, QUICK) as committer:
                    return committer.stats

            stats = asyncio.run(main())
            assert stats.set_aside_requests == 0
            assert log.depth().requests == 0
            log.durable(log.append(_record(20_000))).result(10)  # the released segments freed the disk
        assert store.stored == [_record(i).payload for i in acknowledged]
