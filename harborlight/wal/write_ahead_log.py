"""The write-ahead log: accepted requests are appended here and acknowledged; one committer takes them
in order, stores them, and releases them; a segment is deleted once every record in it is released.

Threads: append() and durable() run on the event loop, take() and release() on the committer's thread,
depth() anywhere. The state they share is behind one lock; file reads happen outside it, up to the end
published by the last complete append, so a reader never sees half a record.

Bounded: a record that would take the unreleased bytes past `max_bytes` is refused (LogFull, retryable),
unless the log is empty. Disk use stays under `max_bytes` plus one segment of released records.

Exactly once across crashes: the committer calls begin() before storing a batch, which records it in
the checkpoint (harborlight.wal.checkpoint) and names its deduplication token. At open, records before the
last batch begun are passed over (stored), and the first take() hands back that batch as it was, to be
stored again under the same token (the store skips what of it had landed). The last segment's torn tail
is cut at open; damage found in earlier segments while reading is skipped and reported (Damage).

A full disk (or a failing one): an append that cannot be written is refused (LogUnwritable: retryable, never
acknowledged) and its partial bytes are cut, so the next append and the next start find whole records only;
a rotation that cannot create its new segment leaves the old one active and no file behind; the checkpoint
is written in place (harborlight.wal.checkpoint), so the committer can record progress, and release what it
stored, on a disk with no free byte. Opening needs no new space either: the last segment is appended to
again, and a new one is created at the first append that needs it.
"""

import contextlib
import fcntl
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path

from harborlight.wal import checkpoint, segment
from harborlight.wal.checkpoint import Checkpoint
from harborlight.wal.durability import Flusher, FsyncPolicy, fsync_path
from harborlight.wal.record import BadBody, Parsed, Record, encode, framed_size
from harborlight.wal.segment import MAGIC, Damage
from harborlight.write_errors import LogFull, LogUnwritable, no_space

log = logging.getLogger(__name__)

MAX_SEGMENT_BYTES = 64 << 20
# `<digest hex> <token>` lines: requests set aside and appended again (harborlight wal replay-rejected), each
# committed alone under the token of its last attempt, so the store skips whatever of it had landed then.
REPLAY_TOKENS = "replay-tokens"
TOKEN_SUFFIX = ".token"  # beside a set-aside request in rejected/: the token it was last tried under
REMEMBERED_DAMAGE = 100


@dataclass(frozen=True)
class Entry:
    """A record read back, with its place in the log (what release() takes)."""

    seq: int
    record: Record
    appended_at_ns: int
    segment: int  # the first sequence number of its segment
    end: int  # its end in that segment
    position: int  # its end, counted in record bytes since the log was opened


@dataclass(frozen=True)
class Depth:
    bytes: int
    requests: int
    oldest_age_seconds: float | None  # None when the log holds nothing unreleased


@dataclass(frozen=True)
class LogReport:
    """The log as /api/ingest and /metrics show it."""

    bytes: int  # acknowledged, not yet stored
    requests: int
    oldest_age_seconds: float | None  # the commit lag: how long the oldest of them has waited
    max_bytes: int
    fsync: str
    appended_requests: int
    refused_full: int
    deleted_segments: int
    damage: list[str]  # what recovery cut and reading skipped, most recent last
    refused_disk: int = 0  # appends its disk refused (full or failing): answered retryably, not acknowledged
    disk_free_bytes: int | None = None  # free on the log's file system (for an unprivileged process)
    disk_total_bytes: int | None = None
    rejected_requests: int = 0  # set aside in rejected/ (harborlight wal replay-rejected commits them again)
    rejected_bytes: int = 0


@dataclass(frozen=True)
class Recovered:
    """What the previous process left in the log."""

    segments: int
    requests: int  # in its segments, stored or not
    bytes: int
    damage: list[Damage]
    in_flight: tuple[int, int] | None  # the batch it had begun to store: the first take() returns it again


@dataclass
class WalStats:
    appended_requests: int = 0
    appended_bytes: int = 0
    refused_full: int = 0
    refused_disk: int = 0
    deleted_segments: int = 0
    damage: deque[Damage] = field(default_factory=lambda: deque(maxlen=REMEMBERED_DAMAGE))


@dataclass
class _Segment:
    first_seq: int
    path: Path
    size: int  # bytes written and published (complete records only)
    fd: int | None = None  # open for appending (the active segment), or sealed and waiting for its fsync


@dataclass
class _Place:
    """A point in the log: before the record `seq`, at `offset` of segment `segment`."""

    segment: int
    offset: int
    seq: int
    position: int


class LogInUse(OSError):
    """Another process (or another log in this one) has the directory open."""


def _lock(directory: Path) -> int:
    fd = os.open(directory / "lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise LogInUse(
            f"the write-ahead log {directory} is in use by another harborlight "
            "(each process needs a --wal-dir of its own)"
        ) from None
    return fd


class WriteAheadLog:
    def __init__(
        self,
        directory: Path,
        policy: FsyncPolicy,
        max_bytes: int,
        segment_bytes: int | None = None,
        settle: Callable[[], None] | None = None,
    ) -> None:
        """Opens the log in `directory`, recovering what a previous process left. `settle`, when given,
        runs before segments are deleted: it makes durable what the committer stored from them."""
        self.directory = Path(directory)
        self.policy = policy
        self.max_bytes = max_bytes
        self.segment_bytes = segment_bytes or min(MAX_SEGMENT_BYTES, max(1 << 20, max_bytes // 8))
        self._settle = settle
        self._lock = threading.Lock()
        self.stats = WalStats()
        self._unsynced: list[_Segment] = []  # sealed segments whose fd the flusher syncs, then closes
        self._dir_dirty = False
        self.directory.mkdir(parents=True, exist_ok=True)
        self._lock_fd = _lock(self.directory)
        self._checkpoint = checkpoint.load(self.directory) or Checkpoint.new()
        self.replay_tokens = load_replay_tokens(self.directory)
        self._segments, next_seq, damage = self._recover()
        in_flight = self._checkpoint.in_flight
        # A log whose segments are all gone goes on counting where its checkpoint stopped: a number once
        # used in a token is never used again under the same log id.
        self._next_seq = max(next_seq, self._checkpoint.committed_through + 1, in_flight[1] + 1 if in_flight else 0)
        self._written = sum(s.size - len(MAGIC) for s in self._segments)
        self.recovered = Recovered(
            len(self._segments), self._next_seq - self._first_seq(), self._written, damage, in_flight
        )
        self._head = self._start()
        self._cursor = self._start()
        self._stored_through = in_flight[0] - 1 if in_flight else self._checkpoint.committed_through
        self._replay = in_flight
        self._replayed: tuple[tuple[int, int], int] | None = None  # the replayed batch's range and last record
        self._reader: segment.Reader | None = None
        # Appended to: the last segment, when one is left; else created by the first append.
        self._active: _Segment | None = None
        self._torn = False  # the active segment holds bytes of a failed append that could not be cut
        if self._segments and self._last_scanned:  # cut to its last whole record at open: appendable
            self._active = self._segments[-1]
            self._active.fd = segment.reopen(self._active.path)
        self._durable = self._next_seq - 1
        if (
            checkpoint.load(self.directory) is None
            or (self.directory / checkpoint.NAME).stat().st_size != checkpoint.FILE_BYTES
        ):
            try:  # made now, while there is room: later checkpoints are written in place
                checkpoint.create(self.directory, self._checkpoint, durable=policy.interval_ms is not None)
            except OSError as exc:
                log.warning("write-ahead log: cannot write its checkpoint yet (%s); trying at the next commit", exc)
        self._flusher: Flusher | None = None
        if policy.interval_ms is not None:
            self._flusher = Flusher(self._sync, policy.interval_ms / 1000 or None)

    def __enter__(self) -> "WriteAheadLog":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Flushes by the policy, records how far the committer got, and closes every file."""
        if self._flusher is not None:
            self._flusher.close()
        with self._lock:
            begun = self._checkpoint.in_flight
            unfinished = begun if begun and begun[1] >= self._head.seq else None
            through = max(self._checkpoint.committed_through, self._head.seq - 1)
            try:
                self._save(Checkpoint(self._checkpoint.log_id, through, unfinished))
            except OSError as exc:  # the next start replays from the last checkpoint written: nothing is lost
                log.error("write-ahead log: could not record the committer's progress at close: %s", exc)
        if self._reader is not None:
            self._reader.close()
        for s in [*self._unsynced, self._active]:
            if s is not None and s.fd is not None:
                os.close(s.fd)
                s.fd = None
        os.close(self._lock_fd)  # and with it the lock

    # -- appending (the event loop) ----------------------------------------------------------------

    def append(self, record: Record) -> int:
        """Writes the record and returns its sequence number; raises LogFull past the size limit, and
        LogUnwritable when the disk refuses the bytes (nothing of the record stays in the log then).
        Written means a process kill no longer loses it; durable(seq) says when a power loss does not."""
        size = framed_size(record)
        with self._lock:
            depth = self._written - self._head.position
            if depth and depth + size > self.max_bytes:
                self.stats.refused_full += 1
                raise LogFull(
                    f"write-ahead log is full ({depth >> 20} of {self.max_bytes >> 20} MiB waiting "
                    "for the store); retry later"
                )
            parts = encode(record, time.time_ns())
            try:
                if (
                    self._active is None
                    or self._torn
                    or (self._active.size > len(MAGIC) and self._active.size + size > self.segment_bytes)
                ):
                    self._rotate()
                assert self._active is not None and self._active.fd is not None
                self._write(self._active, parts)
            except OSError as exc:
                self.stats.refused_disk += 1
                what = "is full" if no_space(exc) else "cannot be written"
                raise LogUnwritable(
                    f"the write-ahead log's disk {what} ({exc.strerror or exc}); nothing of this "
                    "request was kept: retry later"
                ) from exc
            self._active.size += size
            self._written += size
            seq = self._next_seq
            self._next_seq += 1
            self.stats.appended_requests += 1
            self.stats.appended_bytes += size
            return seq

    def durable(self, seq: int) -> Future[None] | None:
        """A concurrent Future that resolves once record `seq` survives a power loss, or None when the
        policy acknowledges without waiting (an interval, never)."""
        if self.policy.interval_ms != 0 or self._flusher is None or seq <= self._durable:
            return None
        return self._flusher.wait(seq)

    def _write(self, s: _Segment, parts: list[bytes]) -> None:
        """Appends one record's bytes; on failure cuts what of them was written, so the segment ends with a
        whole record (when even the cut fails, the segment is left for a new one at the next append)."""
        assert s.fd is not None  # an open segment
        try:
            segment.write_all(s.fd, parts)
        except OSError:
            try:
                os.ftruncate(s.fd, s.size)
            except OSError as exc:
                log.error(
                    "write-ahead log: could not cut a failed append from %s (%s): a new segment follows",
                    s.path.name,
                    exc,
                )
                self._torn = True
            raise

    def _rotate(self) -> None:
        """A new active segment; when it cannot be created the old one stays active, nothing else changed."""
        new = self._new_segment(self._next_seq)
        old, self._active, self._torn = self._active, new, False
        if old is None:
            return
        if self._flusher is not None:
            self._unsynced.append(old)  # its last bytes are synced before its fd closes
        elif old.fd is not None:
            os.close(old.fd)
            old.fd = None

    def _new_segment(self, first_seq: int) -> _Segment:
        path, fd = segment.create(self.directory, first_seq)
        s = _Segment(first_seq, path, len(MAGIC), fd)
        self._segments.append(s)
        self._dir_dirty = True
        return s

    def _sync(self) -> int:
        """The flusher's work: fsyncs what was written and returns the last sequence number it covers."""
        with self._lock:
            target = self._next_seq - 1
            sealed, self._unsynced = self._unsynced, []
            fds = [s.fd for s in sealed] + [self._active.fd if self._active is not None else None]
            dir_dirty, self._dir_dirty = self._dir_dirty, False
            if target == self._durable and not sealed and not dir_dirty:
                return target
        try:
            for fd in fds:
                if fd is not None:
                    os.fdatasync(fd)
            if dir_dirty:
                fsync_path(self.directory)
        except OSError:  # tried again at the next flush: nothing is taken for durable that was not synced
            with self._lock:
                self._unsynced[:0] = sealed
                self._dir_dirty = self._dir_dirty or dir_dirty
            raise
        with self._lock:
            for s in sealed:
                if s.fd is not None:
                    os.close(s.fd)
                    s.fd = None
            self._durable = target
        return target

    # -- committing (the committer's thread) -------------------------------------------------------

    def take(self, max_items: int, max_bytes: int) -> list[Entry]:
        """The next records after the last one taken, in order: at least one if any is waiting, then as
        many as fit in `max_items` items and `max_bytes` (a record's expanded bytes, else its payload).
        After a restart, the batch the last process had begun comes first, whole, whatever its size."""
        replay, self._replay = self._replay, None
        entries: list[Entry] = []
        items = size = 0
        while (found := self._peek()) is not None:
            current, frame = found
            seq = self._cursor.seq
            if seq <= self._stored_through:  # stored before the restart
                self._consume(current, frame)
                self._head = _Place(current.first_seq, frame.end, seq + 1, self._cursor.position)
                continue
            weight = frame.record.expanded_bytes or len(frame.record.payload)
            if replay is not None and seq > replay[1]:
                if entries:
                    break
                replay = None  # nothing of it is left: an ordinary batch
            if replay is None and entries and (items + frame.record.items > max_items or size + weight > max_bytes):
                break
            alone = frame.record.digest in self.replay_tokens  # a replayed request: a batch of its own
            if replay is None and entries and alone:
                break
            items += frame.record.items
            size += weight
            entries.append(self._consume(current, frame))
            if replay is None and alone:
                break
        if replay is not None and entries:
            self._replayed = (replay, entries[-1].seq)
        return entries

    def begin(self, entries: list[Entry]) -> str:
        """Records that `entries` (the next records in order) are about to be stored, and returns the
        deduplication token of this batch: the same records always get the same token."""
        first, last = entries[0].seq, entries[-1].seq
        replayed = self._replayed if self._replayed is not None and self._replayed[1] == last else None
        if replayed is not None:
            first, last = replayed[0]  # named as the last process named it
        with self._lock:
            self._save(Checkpoint(self._checkpoint.log_id, first - 1, (first, last)))  # a failure: asked again
        if replayed is not None:
            self._replayed = None
        if len(entries) == 1 and (token := self.replay_tokens.get(entries[0].record.digest)):
            return token
        return f"{self._checkpoint.log_id}:{first}-{last}"

    def _peek(self) -> tuple["_Segment", Parsed] | None:
        """The readable record at the cursor, passing over (and reporting) damage; None at the end."""
        while True:
            with self._lock:
                current = next((s for s in self._segments if s.first_seq == self._cursor.segment), None)
                after = next((s for s in self._segments if s.first_seq > self._cursor.segment), None)
                stop = current.size if current is not None else 0
            if current is None:  # read to its end, sealed by an append, then released and deleted
                if after is None:
                    return None
                self._move_to(after)
                continue
            if self._cursor.offset >= stop:
                if current is self._active or after is None:
                    return None
                self._move_to(after)
                continue
            frame = self._reader_for(current).frame(self._cursor.offset, stop)
            if isinstance(frame, Parsed):
                return current, frame
            if isinstance(frame, BadBody):
                self._damaged(
                    Damage(
                        current.path.name,
                        self._cursor.offset,
                        frame.end - self._cursor.offset,
                        f"{frame.reason}: record skipped",
                    )
                )
                self._advance(frame.end)
                continue
            reason = getattr(frame, "reason", "record cut short")  # nothing after this point can be read
            self._damaged(
                Damage(
                    current.path.name,
                    self._cursor.offset,
                    stop - self._cursor.offset,
                    f"{reason}: rest of the segment skipped",
                )
            )
            self._cursor.position += stop - self._cursor.offset
            self._cursor.offset = stop
            with self._lock:
                if current is self._active:
                    self._rotate()

    def _consume(self, current: "_Segment", frame: Parsed) -> Entry:
        self._advance(frame.end)
        return Entry(
            self._cursor.seq - 1,
            frame.record,
            frame.appended_at_ns,
            current.first_seq,
            frame.end,
            self._cursor.position,
        )

    @property
    def rejected_dir(self) -> Path:
        return self.directory / "rejected"

    def set_aside(self, entry: Entry, reason: str, token: str | None = None) -> Path:
        """Keeps a record the store refuses in rejected/, as a one-record segment (readable as the log is),
        with the token it was last tried under beside it, for whoever looks into why and for
        `harborlight wal replay-rejected`; the log releases it with its batch."""
        self.rejected_dir.mkdir(exist_ok=True)
        if (path := self.rejected_dir / segment.name(entry.seq)).exists():
            return path  # set aside before a restart
        if token:
            sidecar = self.rejected_dir / (segment.name(entry.seq) + TOKEN_SUFFIX)
            sidecar.write_text(token + "\n")
        path, fd = segment.create(self.rejected_dir, entry.seq)
        try:
            segment.write_all(fd, encode(entry.record, entry.appended_at_ns))
            os.fsync(fd)
        except BaseException:
            os.close(fd)
            path.unlink(missing_ok=True)  # written whole or not at all: the committer tries again
            raise
        os.close(fd)
        log.error("write-ahead log: request %d set aside in %s: %s", entry.seq, path, reason)
        return path

    def _save(self, new: Checkpoint) -> None:
        if new != self._checkpoint:
            checkpoint.store(self.directory, new, durable=self.policy.interval_ms == 0)
            self._checkpoint = new

    def release(self, entry: Entry) -> None:
        """Every record up to `entry` is stored: segments that hold nothing else are deleted."""
        with self._lock:
            self._head = _Place(entry.segment, entry.end, entry.seq + 1, entry.position)
            done = [
                s
                for s in self._segments
                if s is not self._active
                and (s.first_seq < entry.segment or (s.first_seq == entry.segment and entry.end >= s.size))
            ]
        if not done:
            return
        if self._settle is not None:
            self._settle()
        for s in done:
            s.path.unlink(missing_ok=True)
        with self._lock:
            self._segments = [s for s in self._segments if s not in done]
            self.stats.deleted_segments += len(done)

    def _reader_for(self, s: _Segment) -> segment.Reader:
        if self._reader is None or self._reader.path != s.path:
            if self._reader is not None:
                self._reader.close()
            self._reader = segment.Reader(s.path)
        return self._reader

    def _advance(self, end: int) -> None:
        self._cursor.position += end - self._cursor.offset
        self._cursor.offset = end
        self._cursor.seq += 1

    def _move_to(self, s: _Segment) -> None:
        self._cursor = _Place(s.first_seq, len(MAGIC), s.first_seq, self._cursor.position)
        if not self._reader_for(s).has_magic():
            self._damaged(Damage(s.path.name, 0, s.size, "no magic line: segment skipped"))
            self._cursor.position += s.size - len(MAGIC)
            self._cursor.offset = s.size

    def _damaged(self, damage: Damage) -> None:
        log.warning("write-ahead log: %s", damage)
        self.stats.damage.append(damage)

    # -- reporting ---------------------------------------------------------------------------------

    def depth(self) -> Depth:
        with self._lock:
            requests = self._next_seq - self._head.seq
            size = self._written - self._head.position
            oldest = self._oldest_place() if requests else None
        appended = None
        if oldest is not None:
            try:
                with segment.Reader(oldest[0]) as reader:
                    appended = reader.appended_at(oldest[1])
            except FileNotFoundError:  # released and deleted meanwhile
                appended = None
        age = max(0.0, (time.time_ns() - appended) / 1e9) if appended is not None else None
        return Depth(size, requests, age)

    def report(self) -> LogReport:
        depth = self.depth()
        free = total = None
        try:
            fs = os.statvfs(self.directory)
            free, total = fs.f_bavail * fs.f_frsize, fs.f_blocks * fs.f_frsize
        except OSError:
            pass
        rejected = [p for _, p in segment.listed(self.rejected_dir)] if self.rejected_dir.is_dir() else []
        rejected_bytes = 0
        for path in rejected:
            with contextlib.suppress(FileNotFoundError):
                rejected_bytes += path.stat().st_size - len(MAGIC)
        return LogReport(
            depth.bytes,
            depth.requests,
            depth.oldest_age_seconds,
            self.max_bytes,
            str(self.policy),
            self.stats.appended_requests,
            self.stats.refused_full,
            self.stats.deleted_segments,
            [str(d) for d in self.stats.damage],
            self.stats.refused_disk,
            free,
            total,
            len(rejected),
            rejected_bytes,
        )

    def _oldest_place(self) -> tuple[Path, int] | None:
        for s in self._segments:
            if s.first_seq < self._head.segment:
                continue
            offset = self._head.offset if s.first_seq == self._head.segment else len(MAGIC)
            if offset < s.size:
                return s.path, offset
        return None

    # -- opening -----------------------------------------------------------------------------------

    def _first_seq(self) -> int:
        return self._segments[0].first_seq if self._segments else self._next_seq

    def _start(self) -> _Place:
        first = self._first_seq()
        return _Place(first, len(MAGIC), first, 0)

    def _recover(self) -> tuple[list[_Segment], int, list[Damage]]:
        """The segments a previous process left, the next sequence number, and the damage found in the
        last segment (a torn tail, cut here). Earlier segments are checked as they are read."""
        found = segment.listed(self.directory)
        damage: list[Damage] = []
        next_seq = 1
        self._last_scanned = False
        if found:
            last_seq, last_path = found.pop()
            scanned = segment.scan(last_path)
            damage += scanned.damage
            next_seq = last_seq + scanned.records
            if not scanned.magic:
                last_path.rename(last_path.with_suffix(".damaged"))
            elif not scanned.records:  # nothing readable: it was created just before the crash
                last_path.unlink()
            else:
                if scanned.good_end < last_path.stat().st_size:
                    os.truncate(last_path, scanned.good_end)
                found.append((last_seq, last_path))
                self._last_scanned = True
        for d in damage:
            self._damaged(d)
        if self.policy.interval_ms is not None:
            for _, path in found:  # what the last process acknowledged before its next fsync, and the cut
                fsync_path(path)
        return [_Segment(seq, path, path.stat().st_size) for seq, path in found], next_seq, damage


def load_replay_tokens(directory: Path) -> dict[bytes, str]:
    try:
        text = (Path(directory) / REPLAY_TOKENS).read_text()
    except FileNotFoundError:
        return {}
    tokens = {}
    for line in text.splitlines():
        digest, _, token = line.partition(" ")
        try:
            tokens[bytes.fromhex(digest)] = token.strip()
        except ValueError:
            continue  # a line cut by a crash
    return {d: t for d, t in tokens.items() if t}
