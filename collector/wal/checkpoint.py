"""The committer's progress, kept beside the segments so that a restart replays nothing twice.

Before each commit the committer records which records it is about to store (`in_flight`, a range of
sequence numbers) and that everything before them is stored (`committed_through`). After a crash the
in-flight range is committed again as the same batch under the same deduplication token, so the store
skips whatever of it had landed; everything after it was never begun. The log's id is part of every
token: a log created anew (its directory emptied) starts its numbers again under another id.

The file is replaced whole (written aside, then renamed over), so it is always one version or the other.
"""

import os
import struct
import uuid
import zlib
from dataclasses import dataclass
from pathlib import Path

from collector.wal.durability import fsync_path

NAME = "checkpoint"
_LAYOUT = struct.Struct("<16sQQQ")  # log id, committed through, in-flight first, in-flight last (0: none)


@dataclass(frozen=True)
class Checkpoint:
    log_id: str  # 32 hex digits
    committed_through: int  # every record up to this sequence number is stored
    in_flight: tuple[int, int] | None  # the batch begun last, maybe stored, maybe not

    @classmethod
    def new(cls) -> "Checkpoint":
        return cls(uuid.uuid4().hex, 0, None)


def load(directory: Path) -> Checkpoint | None:
    """The last checkpoint written, or None when there is none (or it is unreadable)."""
    try:
        data = (directory / NAME).read_bytes()
    except FileNotFoundError:
        return None
    if len(data) != _LAYOUT.size + 4 or zlib.crc32(data[:-4]) != int.from_bytes(data[-4:], "little"):
        return None
    log_id, through, first, last = _LAYOUT.unpack(data[:-4])
    return Checkpoint(log_id.hex(), through, (first, last) if last else None)


def store(directory: Path, checkpoint: Checkpoint, durable: bool) -> None:
    """Replaces the checkpoint; `durable`: the new one survives a power loss once this returns."""
    first, last = checkpoint.in_flight or (0, 0)
    body = _LAYOUT.pack(bytes.fromhex(checkpoint.log_id), checkpoint.committed_through, first, last)
    aside = directory / (NAME + ".new")
    fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, body + zlib.crc32(body).to_bytes(4, "little"))
        if durable:
            os.fdatasync(fd)
    finally:
        os.close(fd)
    os.replace(aside, directory / NAME)
    if durable:
        fsync_path(directory)
