"""Segment files: the log is a directory of them, each named by the sequence number of its first
record and starting with a magic line; records follow back to back (harborlight.wal.record)."""

import os
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from harborlight.wal.record import BadBody, BadHeader, Frame, Parsed, Truncated, appended_at, parse

MAGIC = b"HLWAL01\n"
SUFFIX = ".wal"
_CHUNK = 4 << 20


@dataclass(frozen=True)
class Damage:
    """Bytes of a segment that hold no readable record, and what became of them."""

    segment: str
    offset: int
    bytes: int
    reason: str  # "torn tail cut", "checksum mismatch: record skipped", ...

    def __str__(self) -> str:
        return f"{self.segment} at byte {self.offset}: {self.bytes} bytes, {self.reason}"


def name(first_seq: int) -> str:
    return f"{first_seq:020d}{SUFFIX}"


def listed(directory: Path) -> list[tuple[int, Path]]:
    """The directory's segments by first sequence number; other files are left alone."""
    found = []
    for path in directory.glob(f"*{SUFFIX}"):
        stem = path.name.removesuffix(SUFFIX)
        if stem.isdigit():
            found.append((int(stem), path))
    return sorted(found)


def create(directory: Path, first_seq: int) -> tuple[Path, int]:
    """A new, empty segment open for appending: its path and file descriptor. When it cannot be written
    (a full disk), nothing is left behind: no empty file stands in the way of the next try."""
    path = directory / name(first_seq)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
    except FileExistsError:
        if path.stat().st_size > len(MAGIC):
            raise
        path.unlink()  # an earlier try's leftover, holding no record
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
    try:
        write_all(fd, [MAGIC])
    except BaseException:
        os.close(fd)
        path.unlink(missing_ok=True)
        raise
    return path, fd


def reopen(path: Path) -> int:
    """An existing segment's file descriptor for appending after its last record."""
    return os.open(path, os.O_WRONLY | os.O_APPEND)


def write_all(fd: int, parts: list[bytes]) -> None:
    """Writes every byte of `parts`: a regular file may take fewer than asked (a signal, a full disk)."""
    views = [memoryview(p) for p in parts if p]
    while views:
        written = os.writev(fd, views)
        while views and written >= len(views[0]):
            written -= len(views[0])
            views.pop(0)
        if views and written:
            views[0] = views[0][written:]


class Reader:
    """Reads one segment's records in order, a few MiB at a time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd = os.open(path, os.O_RDONLY)
        self._start = 0
        self._buffer = b""

    def close(self) -> None:
        os.close(self._fd)

    def __enter__(self) -> "Reader":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def has_magic(self) -> bool:
        return os.pread(self._fd, len(MAGIC), 0) == MAGIC

    def frame(self, offset: int, stop: int) -> Frame:
        """The record at `offset`, reading no further than `stop` (the end written so far)."""
        end = self._start + len(self._buffer)
        if not (self._start <= offset < end):
            self._fill(offset, stop, _CHUNK)
        frame = self._parse(offset)
        if isinstance(frame, Truncated) and self._start + len(self._buffer) < stop:
            self._fill(offset, stop, max(_CHUNK, self._needed(offset)))  # a record longer than what is buffered
            frame = self._parse(offset)
        if isinstance(frame, Parsed | BadBody):
            return replace(frame, end=frame.end + self._start)  # the buffer's position, made the file's
        return frame

    def appended_at(self, offset: int) -> int | None:
        return appended_at(os.pread(self._fd, 64, offset), 0)

    def _parse(self, offset: int) -> Frame:
        return parse(memoryview(self._buffer), offset - self._start)

    def _needed(self, offset: int) -> int:
        head = os.pread(self._fd, 4, offset)
        return 12 + int.from_bytes(head, "little") if len(head) == 4 else 0

    def _fill(self, offset: int, stop: int, size: int) -> None:
        self._start = offset
        self._buffer = os.pread(self._fd, max(0, min(size, stop - offset)), offset)


@dataclass(frozen=True)
class Scanned:
    magic: bool  # False: not a segment (its first bytes are not the magic line)
    records: int  # readable records, plus those skipped for a bad body (each held a sequence number)
    good_end: int  # the end of the last record whose header was intact and complete
    damage: list[Damage]


def scan(path: Path) -> Scanned:
    """Reads a whole segment to find where its readable records end (what a crash left behind)."""
    size = path.stat().st_size
    damage, records, offset, ending = [], 0, len(MAGIC), "torn tail (a record cut short): cut"
    if size < len(MAGIC) and path.read_bytes() == MAGIC[:size]:
        return Scanned(True, 0, size, [])  # created just before a crash, nothing in it yet
    with Reader(path) as reader:
        if not reader.has_magic():
            return Scanned(False, 0, 0, [Damage(path.name, 0, size, "no magic line: set aside")])
        for frame, at in frames(reader, offset, size):
            if isinstance(frame, Parsed | BadBody):
                records += 1
                offset = frame.end
            if isinstance(frame, BadBody):
                damage.append(Damage(path.name, at, frame.end - at, f"{frame.reason}: record skipped"))
            if isinstance(frame, BadHeader):
                ending = f"{frame.reason}: cut, with everything after it"
    if offset < size:
        damage.append(Damage(path.name, offset, size - offset, ending))
    return Scanned(True, records, offset, damage)


def frames(reader: Reader, offset: int, stop: int) -> Iterator[tuple[Frame, int]]:
    """Every frame from `offset` to `stop` with where it starts, up to the first that ends the segment."""
    while offset < stop:
        frame = reader.frame(offset, stop)
        yield frame, offset
        if isinstance(frame, Truncated | BadHeader):
            return
        offset = frame.end
