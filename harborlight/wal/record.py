"""One write-ahead log record: an accepted export request, framed so that a torn or flipped record is
recognised and never read back as data. Pure: bytes in, records out.

    header  body length u32 | body CRC-32 u32 | header CRC-32 u32 (of the 8 bytes before it)
    body    version u8 | signal u8 | flags u8 | pad u8 | items u32 | expanded bytes u64 |
            appended at (Unix ns) u64 | digest 16 bytes | tenant length u16 | tenant UTF-8 | payload

The header has a checksum of its own, so a flipped bit in a body (nearly all of a log's bytes) costs
that one record: the length is still trusted and reading goes on after it. A bad header cannot say
where the next record starts, so nothing after it in its segment can be read. Little-endian throughout.
"""

import struct
import zlib
from dataclasses import dataclass

from harborlight.store import Signal

HEADER = struct.Struct("<III")
BODY = struct.Struct("<BBBxIQQ16sH")
VERSION = 1
DIGEST_BYTES = 16
MAX_BODY_BYTES = 0xFFFF_FFFF
_SIGNAL_CODES = {Signal.traces: 1, Signal.logs: 2, Signal.metrics: 3}
_SIGNALS = {code: signal for signal, code in _SIGNAL_CODES.items()}
_NESTED = 0x01


@dataclass(frozen=True)
class Record:
    """What the committer needs to store a request: everything the receiver learnt while accepting it."""

    signal: Signal
    tenant: str | None
    digest: bytes  # the request's identity for deduplication (16 bytes)
    items: int
    payload: bytes  # the validated OTLP export request
    nested: bool = True  # may hold array/kvlist values (harborlight.commit.nested_values)
    expanded_bytes: int = 0  # what its rows hold once each item carries its resource and scope


@dataclass(frozen=True)
class Parsed:
    record: Record
    appended_at_ns: int
    end: int  # where the next record starts


@dataclass(frozen=True)
class Truncated:
    """The data ends inside this record: a tail torn by a crash (or not yet written)."""


@dataclass(frozen=True)
class BadHeader:
    """The header fails its checksum or names an impossible length: where the next record starts is unknown."""

    reason: str


@dataclass(frozen=True)
class BadBody:
    """The header is intact, the body is not: this record is lost, the next one starts at `end`."""

    reason: str
    end: int


Frame = Parsed | Truncated | BadHeader | BadBody


def encode(record: Record, appended_at_ns: int) -> list[bytes]:
    """The record's frame, in parts (for os.writev: the payload is not copied)."""
    if len(record.digest) != DIGEST_BYTES:
        raise ValueError(f"a digest has {DIGEST_BYTES} bytes, not {len(record.digest)}")
    tenant = (record.tenant or "").encode()
    prefix = BODY.pack(
        VERSION,
        _SIGNAL_CODES[record.signal],
        _NESTED if record.nested else 0,
        record.items,
        record.expanded_bytes,
        appended_at_ns,
        record.digest,
        len(tenant),
    )
    length = len(prefix) + len(tenant) + len(record.payload)
    if length > MAX_BODY_BYTES:
        raise ValueError(f"a record holds at most {MAX_BODY_BYTES} bytes")
    crc = zlib.crc32(record.payload, zlib.crc32(tenant, zlib.crc32(prefix)))
    head = struct.pack("<II", length, crc)
    return [head + struct.pack("<I", zlib.crc32(head)), prefix + tenant, record.payload]


def framed_size(record: Record) -> int:
    return HEADER.size + BODY.size + len((record.tenant or "").encode()) + len(record.payload)


def parse(data: memoryview | bytes, pos: int) -> Frame:
    """The record that starts at `pos` in `data`."""
    if len(data) - pos < HEADER.size:
        return Truncated()
    length, crc, header_crc = HEADER.unpack_from(data, pos)
    if zlib.crc32(data[pos : pos + 8]) != header_crc:
        return BadHeader("header checksum mismatch")
    if length < BODY.size:
        return BadHeader(f"body length {length} is shorter than a record")
    start, end = pos + HEADER.size, pos + HEADER.size + length
    if end > len(data):
        return Truncated()
    body = data[start:end]
    if zlib.crc32(body) != crc:
        return BadBody("body checksum mismatch", end)
    version, code, flags, items, expanded, appended_at, digest, tenant_len = BODY.unpack_from(body)
    if version != VERSION or code not in _SIGNALS or BODY.size + tenant_len > length:
        return BadBody(f"unknown record layout (version {version}, signal {code})", end)
    tenant = bytes(body[BODY.size : BODY.size + tenant_len]).decode()
    payload = bytes(body[BODY.size + tenant_len :])
    record = Record(_SIGNALS[code], tenant or None, digest, items, payload, bool(flags & _NESTED), expanded)
    return Parsed(record, appended_at, end)


def appended_at(data: memoryview | bytes, pos: int) -> int | None:
    """When the record at `pos` was appended, read from its header and the start of its body only."""
    if len(data) - pos < HEADER.size + BODY.size:
        return None
    _, _, header_crc = HEADER.unpack_from(data, pos)
    if zlib.crc32(data[pos : pos + 8]) != header_crc:
        return None
    appended: int = BODY.unpack_from(data, pos + HEADER.size)[5]
    return appended
