"""The committer's progress, kept beside the segments so that a restart replays nothing twice.

Before each commit the committer records which records it is about to store (`in_flight`, a range of
sequence numbers) and that everything before them is stored (`committed_through`). After a crash the
in-flight range is committed again as the same batch under the same deduplication token, so the store
skips whatever of it had landed; everything after it was never begun. The log's id is part of every
token: a log created anew (its directory emptied) starts its numbers again under another id.

The file holds two slots, each a whole checkpoint with a generation number and a checksum; a new one is
written over the older slot, in place. So recording progress never needs a byte of new disk space (the log's
own disk may be full: the committer must still be able to store and release what it holds, which is what
frees that disk), and a write torn by a crash leaves the other slot, the previous checkpoint, to be read
(replaying a batch that was begun before is harmless: its token makes the store skip it). The file is
created whole (written aside, then renamed over) when the log is opened, or when the older one-checkpoint
form is found.
"""

import errno
import os
import struct
import uuid
import zlib
from dataclasses import dataclass
from pathlib import Path

from harborlight.wal.durability import fsync_path

NAME = "checkpoint"
_OLD = struct.Struct("<16sQQQ")  # log id, committed through, in-flight first, in-flight last (0: none)
_SLOT = struct.Struct("<16sQQQQ")  # the same, then the generation
SLOT_BYTES = 64
FILE_BYTES = 2 * SLOT_BYTES


@dataclass(frozen=True)
class Checkpoint:
    log_id: str  # 32 hex digits
    committed_through: int  # every record up to this sequence number is stored
    in_flight: tuple[int, int] | None  # the batch begun last, maybe stored, maybe not

    @classmethod
    def new(cls) -> "Checkpoint":
        return cls(uuid.uuid4().hex, 0, None)


def _checked(body: bytes) -> bytes:
    return body + zlib.crc32(body).to_bytes(4, "little")


def _valid(data: bytes) -> bytes | None:
    body, crc = data[:-4], data[-4:]
    return body if zlib.crc32(body) == int.from_bytes(crc, "little") else None


def _slots(data: bytes) -> list[tuple[int, Checkpoint]]:
    """The readable checkpoints of a file's bytes with their generations (the older form: generation 0)."""
    if len(data) == _OLD.size + 4:
        if (body := _valid(data)) is None:
            return []
        log_id, through, first, last = _OLD.unpack(body)
        return [(0, Checkpoint(log_id.hex(), through, (first, last) if last else None))]
    found = []
    if len(data) == FILE_BYTES:
        for i in range(2):
            slot = data[i * SLOT_BYTES : i * SLOT_BYTES + _SLOT.size + 4]
            if slot.strip(b"\0") and (body := _valid(slot)) is not None:
                log_id, through, first, last, generation = _SLOT.unpack(body)
                found.append((generation, Checkpoint(log_id.hex(), through, (first, last) if last else None)))
    return found


def _read(directory: Path) -> bytes | None:
    try:
        return (directory / NAME).read_bytes()
    except FileNotFoundError:
        return None


def load(directory: Path) -> Checkpoint | None:
    """The last checkpoint written, or None when there is none (or none is readable)."""
    data = _read(directory)
    found = _slots(data) if data is not None else []
    return max(found, key=lambda g: g[0])[1] if found else None


def _slot(checkpoint: Checkpoint, generation: int) -> bytes:
    first, last = checkpoint.in_flight or (0, 0)
    body = _SLOT.pack(bytes.fromhex(checkpoint.log_id), checkpoint.committed_through, first, last, generation)
    return _checked(body).ljust(SLOT_BYTES, b"\0")


def create(directory: Path, checkpoint: Checkpoint, durable: bool) -> None:
    """Writes the file whole (aside, then renamed over): the one write that needs disk space."""
    aside = directory / (NAME + ".new")
    fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        data = bytes(SLOT_BYTES) + _slot(checkpoint, 1)  # generation g lives in slot g % 2
        if os.write(fd, data) != len(data):
            raise OSError(errno.ENOSPC, "short write", str(aside))
        if durable:
            os.fdatasync(fd)
    except BaseException:
        os.close(fd)
        aside.unlink(missing_ok=True)  # no half-written file left to take a full disk's last pages
        raise
    os.close(fd)
    os.replace(aside, directory / NAME)
    if durable:
        fsync_path(directory)


def store(directory: Path, checkpoint: Checkpoint, durable: bool) -> None:
    """Replaces the checkpoint; `durable`: the new one survives a power loss once this returns. Written over
    the older slot, in place: no new disk space needed."""
    data = _read(directory)
    found = _slots(data) if data is not None and len(data) == FILE_BYTES else None
    if found is None:  # no file yet, or the older form
        create(directory, checkpoint, durable)
        return
    generation = max((g for g, _ in found), default=0) + 1
    fd = os.open(directory / NAME, os.O_WRONLY)
    try:
        slot = _slot(checkpoint, generation)
        if os.pwrite(fd, slot, (generation % 2) * SLOT_BYTES) != SLOT_BYTES:
            raise OSError(errno.EIO, "short write of the checkpoint", str(directory / NAME))
        if durable:
            os.fdatasync(fd)
    finally:
        os.close(fd)
