"""The write-ahead log keeps every appended request until the committer releases it, across restarts;
what a crash or a bad disk damaged is cut or skipped and reported, never handed to the committer."""

import os
from pathlib import Path

import grpc
import pytest

from harborlight.ingest.errors import grpc_code, http_status
from harborlight.store import Signal
from harborlight.wal import Entry, FsyncPolicy, LogInUse, Record, WriteAheadLog
from harborlight.wal.record import framed_size
from harborlight.wal.segment import MAGIC
from harborlight.write_errors import LogFull
from tests.collector.wal.dying import run_and_die

ALWAYS, NEVER = FsyncPolicy.parse("always"), FsyncPolicy.parse("never")


def _record(i: int, size: int = 1000, tenant: str | None = None) -> Record:
    return Record(Signal.traces, tenant, i.to_bytes(16, "big"), 10, i.to_bytes(4, "big") * (size // 4))


SIZE = framed_size(_record(0))  # every default-sized _record(i) frames to this many bytes


def _everything(log: WriteAheadLog) -> list[Entry]:
    entries = []
    while batch := log.take(10**9, 10**12):
        entries += batch
    return entries


def _ids(entries: list[Entry]) -> list[int]:
    return [int.from_bytes(e.record.digest, "big") for e in entries]


def _segments(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.wal"))


def test_records_come_back_in_order_with_everything_the_receiver_knew(tmp_path):
    with WriteAheadLog(tmp_path, ALWAYS, 1 << 20) as log:
        written = [_record(1), Record(Signal.logs, "acme", bytes(16), 3, b"\x0a\x00", nested=False, expanded_bytes=99)]
        for r in written:
            log.durable(log.append(r)).result(5)
        assert [e.record for e in _everything(log)] == written


def test_a_restart_hands_back_everything_not_released(tmp_path):
    with WriteAheadLog(tmp_path, NEVER, 1 << 20) as log:
        for i in range(10):
            log.append(_record(i))
        log.release(log.take(10**9, 10**12)[3])  # 0..3 stored
    with WriteAheadLog(tmp_path, NEVER, 1 << 20) as log:
        assert log.recovered.requests == 10 and log.recovered.damage == []
        assert _ids(_everything(log)) == list(range(4, 10))
        log.append(_record(10))
        assert _ids(_everything(log)) == [10]


def test_after_a_crash_the_batch_being_stored_comes_back_whole_under_its_token(tmp_path):
    token = run_and_die(
        tmp_path,
        """
        for i in range(10):
            log.append(record(i))
        first = log.take(4, 10**12)  # 0..3, stored
        log.begin(first)
        log.release(first[-1])
        print(log.begin(log.take(4, 10**12)))  # 4..7: begun, then the process dies
    """,
    ).strip()
    with WriteAheadLog(tmp_path, NEVER, 1 << 20) as log:
        assert log.recovered.in_flight == (5, 8)  # sequence numbers start at 1
        again = log.take(1, 1)  # whatever the limits: the same batch
        assert _ids(again) == [4, 5, 6, 7] and log.begin(again) == token
        assert _ids(_everything(log)) == [8, 9]


def test_a_crash_after_a_commit_but_before_the_next_one_begins_replays_that_commit_under_its_token(tmp_path):
    token = run_and_die(
        tmp_path,
        """
        for i in range(6):
            log.append(record(i))
        batch = log.take(3, 10**12)
        print(log.begin(batch))
        log.release(batch[-1])
    """,
    ).strip()
    with WriteAheadLog(tmp_path, NEVER, 1 << 20) as log:
        again = log.take(10**9, 10**12)
        assert _ids(again) == [0, 1, 2] and log.begin(again) == token  # the store skips it: same token
        assert _ids(_everything(log)) == [3, 4, 5]


def test_a_second_log_on_the_same_directory_is_refused_in_one_line(tmp_path):
    with WriteAheadLog(tmp_path, NEVER, 1 << 20), pytest.raises(LogInUse, match="in use by another harborlight"):
        WriteAheadLog(tmp_path, NEVER, 1 << 20)


def test_tokens_are_never_reused_by_a_log_whose_segments_are_gone_or_by_another_log(tmp_path):
    with WriteAheadLog(tmp_path / "a", NEVER, 1 << 20) as log:
        log.append(_record(1))
        batch = log.take(10**9, 10**12)
        used = log.begin(batch)
        log.release(batch[-1])
    for path in _segments(tmp_path / "a"):
        path.unlink()
    with WriteAheadLog(tmp_path / "a", NEVER, 1 << 20) as log:
        log.append(_record(2))
        assert log.begin(log.take(10**9, 10**12)) != used
    with WriteAheadLog(tmp_path / "b", NEVER, 1 << 20) as other:
        other.append(_record(1))
        assert other.begin(other.take(10**9, 10**12)) != used


@pytest.mark.parametrize("kept", [0, 1, 5, 11, 12, 200, 1007])
def test_a_torn_last_record_is_cut_and_reported_and_the_rest_survives(tmp_path, kept):
    with WriteAheadLog(tmp_path, NEVER, 1 << 20) as log:
        for i in range(3):
            log.append(_record(i))
        log.append(_record(3, size=1000))  # the record a crash tore: only `kept` of its bytes reached the file
    path = _segments(tmp_path)[0]
    torn_at = path.stat().st_size - SIZE
    os.truncate(path, torn_at + kept)
    with WriteAheadLog(tmp_path, NEVER, 1 << 20) as log:
        assert _ids(_everything(log)) == [0, 1, 2]
        if kept:
            [damage] = log.recovered.damage
            assert (damage.offset, damage.bytes) == (torn_at, kept) and "torn tail" in damage.reason
        assert path.stat().st_size == torn_at, "the torn bytes are still in the file"
        log.append(_record(4))  # appends after the cut are read after the survivors
        assert _ids(_everything(log)) == [4]
    with WriteAheadLog(tmp_path, NEVER, 1 << 20) as log:
        assert _ids(_everything(log)) == [0, 1, 2, 4] and log.recovered.damage == []


def test_a_tail_of_zeros_after_a_power_loss_is_cut(tmp_path):
    # ext4 with delayed allocation can leave the file grown and its last blocks zero.
    with WriteAheadLog(tmp_path, NEVER, 1 << 20) as log:
        log.append(_record(1))
    with open(_segments(tmp_path)[0], "ab") as f:
        f.write(bytes(4096))
    with WriteAheadLog(tmp_path, NEVER, 1 << 20) as log:
        assert _ids(_everything(log)) == [1]
        assert [d.bytes for d in log.recovered.damage] == [4096]


def test_a_flipped_bit_in_a_sealed_segment_costs_that_record_only_and_is_reported(tmp_path):
    with WriteAheadLog(tmp_path, NEVER, 64 << 20, segment_bytes=1 << 20) as log:
        for i in range(2000):  # ~2 MiB: two sealed segments and an active one
            log.append(_record(i))
    first = _segments(tmp_path)[0]
    data = bytearray(first.read_bytes())
    data[len(MAGIC) + 5 * SIZE + 500] ^= 0x10  # inside record 5's payload
    first.write_bytes(bytes(data))
    with WriteAheadLog(tmp_path, NEVER, 64 << 20, segment_bytes=1 << 20) as log:
        assert _ids(_everything(log)) == [i for i in range(2000) if i != 5]
        [damage] = log.stats.damage
        assert "checksum mismatch" in damage.reason and damage.offset == len(MAGIC) + 5 * SIZE


def test_a_flipped_bit_in_a_header_loses_the_rest_of_that_segment_only(tmp_path):
    with WriteAheadLog(tmp_path, NEVER, 64 << 20, segment_bytes=1 << 20) as log:
        for i in range(2000):
            log.append(_record(i))
    first = _segments(tmp_path)[0]
    data = bytearray(first.read_bytes())
    data[len(MAGIC) + 5 * SIZE + 1] ^= 0x01  # record 5's length
    first.write_bytes(bytes(data))
    with WriteAheadLog(tmp_path, NEVER, 64 << 20, segment_bytes=1 << 20) as log:
        ids = _ids(_everything(log))
        in_first = int(_segments(tmp_path)[1].name.removesuffix(".wal")) - 1
        assert ids == list(range(5)) + list(range(in_first, 2000))
        assert "rest of the segment skipped" in log.stats.damage[0].reason


def test_a_full_log_refuses_retryably_and_takes_requests_again_once_the_store_catches_up(tmp_path):
    with WriteAheadLog(tmp_path, NEVER, 10_000) as log:
        for i in range(9):
            log.append(_record(i))
        with pytest.raises(LogFull) as refused:
            log.append(_record(9))
        assert grpc_code(refused.value) == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert http_status(refused.value) == 429 and refused.value.retry_after
        assert log.depth().requests == 9 and log.stats.refused_full == 1
        log.release(log.take(10**9, 10**12)[-1])
        log.append(_record(9))
        assert _ids(_everything(log)) == [9]


def test_a_request_larger_than_the_limit_is_taken_when_the_log_is_empty(tmp_path):
    with WriteAheadLog(tmp_path, NEVER, 10_000) as log:
        log.append(_record(1, size=20_000))
        assert _ids(_everything(log)) == [1]


def test_segments_are_deleted_once_every_record_in_them_is_released_and_the_store_settled(tmp_path):
    settled = []
    with WriteAheadLog(
        tmp_path, NEVER, 64 << 20, segment_bytes=1 << 20, settle=lambda: settled.append(len(_segments(tmp_path)))
    ) as log:
        for i in range(2500):  # ~995 a segment: two sealed, one active
            log.append(_record(i))
        assert len(_segments(tmp_path)) == 3
        entries = _everything(log)
        log.release(entries[1500])  # inside the second segment: only the first goes
        assert len(_segments(tmp_path)) == 2 and settled == [3]
        log.release(entries[-1])  # the active segment stays, empty of unreleased records
        assert len(_segments(tmp_path)) == 1 and settled == [3, 2]
        assert log.depth().bytes == 0 and log.depth().requests == 0


def test_depth_counts_the_unreleased_bytes_requests_and_oldest_age(tmp_path):
    with WriteAheadLog(tmp_path, NEVER, 1 << 20) as log:
        assert (log.depth().bytes, log.depth().requests, log.depth().oldest_age_seconds) == (0, 0, None)
        for i in range(4):
            log.append(_record(i))
        depth = log.depth()
        assert (depth.bytes, depth.requests) == (4 * SIZE, 4) and 0 <= depth.oldest_age_seconds < 60
        log.release(log.take(10**9, 10**12)[1])
        assert (log.depth().bytes, log.depth().requests) == (2 * SIZE, 2)


def test_take_stops_at_the_batch_limits_but_always_takes_one(tmp_path):
    with WriteAheadLog(tmp_path, NEVER, 1 << 20) as log:
        for i in range(5):
            log.append(_record(i))  # 10 items, 1000 payload bytes each
        assert _ids(log.take(25, 10**9)) == [0, 1]
        assert _ids(log.take(10**9, 2500)) == [2, 3]
        assert _ids(log.take(1, 1)) == [4]
        assert log.take(1, 1) == []


@pytest.mark.parametrize("text,ms", [("always", 0), ("never", None), ("200", 200), (" Always ", 0)])
def test_fsync_policies_are_read_from_their_flag(text, ms):
    assert FsyncPolicy.parse(text).interval_ms == ms


@pytest.mark.parametrize("text", ["sometimes", "0", "-5", "1.5", ""])
def test_a_bad_fsync_policy_is_one_clear_error(text):
    with pytest.raises(ValueError, match="'always', 'never' or milliseconds"):
        FsyncPolicy.parse(text)


def test_an_interval_policy_acknowledges_without_waiting_and_syncs_in_the_background(tmp_path):
    with WriteAheadLog(tmp_path, FsyncPolicy.parse("5"), 1 << 20) as log:
        assert log.durable(log.append(_record(1))) is None
    with WriteAheadLog(tmp_path, FsyncPolicy.parse("5"), 1 << 20) as log:
        assert _ids(_everything(log)) == [1]


def test_a_segment_sealed_after_its_last_record_was_taken_goes_on_into_the_next(tmp_path):
    """The committer takes up to the end of the active segment; an append then seals it and starts the
    next; releasing that batch deletes the sealed segment under the committer's cursor. The next take
    must go on into the new segment (it once raised StopIteration, which asyncio cannot carry: the
    committer waited forever with no error, while the log filled and refused)."""
    with WriteAheadLog(tmp_path, NEVER, 1 << 20, segment_bytes=4 * SIZE) as log:
        for i in range(3):
            log.append(_record(i))
        taken = log.take(10**9, 10**12)
        log.append(_record(3))
        log.append(_record(4))  # past the segment's size: the first segment is sealed
        log.release(taken[-1])
        assert len(_segments(tmp_path)) == 1
        assert _ids(_everything(log)) == [3, 4]
