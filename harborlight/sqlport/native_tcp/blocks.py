"""An answer's blocks as the native protocol sends them: the columns first (a block of no rows), then each
block of rows, at the client's revision and compressed as the query asked. Pure: an answer in, packets out."""

import json
from collections.abc import Iterator

from harborlight.sqlport.clickhouse_native import empty_block, header_of, reframe, split_blocks
from harborlight.sqlport.native_tcp import packets
from harborlight.sqlport.native_tcp.compression import compress
from harborlight.sqlport.native_tcp.protocol import BLOCK_INFO


def columns_of(names_and_types: bytes) -> list[tuple[str, str]]:
    """The columns of an answer written as JSONCompactEachRowWithNamesAndTypes (its first two lines)."""
    lines = names_and_types.splitlines()
    if len(lines) < 2:
        return []
    return list(zip(json.loads(lines[0]), json.loads(lines[1]), strict=True))


class Framing:
    """How one query's blocks go out: the agreed revision and, when the query asked, the compression."""

    def __init__(self, revision: int, method: int | None, level: int = 1) -> None:
        self.revision = revision
        self.method = method  # None: uncompressed
        self.level = level

    def block(self, native: bytes) -> bytes:
        """One revision-0 Native block as this connection's block bytes."""
        framed = reframe(native, self.revision) if self.revision >= BLOCK_INFO else native
        return compress(framed, self.method, self.level) if self.method is not None else framed

    def extra(self, native: bytes, packet: int) -> bytes:
        """A totals or extremes packet of a revision-0 Native block; b"" without one."""
        blocks = split_blocks(native)
        return packets.data_head(self.revision, packet) + self.block(blocks[0]) if blocks else b""

    def packets(self, body: bytes, names_and_types: bytes) -> Iterator[tuple[bytes, int]]:
        """(packet, rows) for each data packet of an answer: the header first, then each block with rows.
        Raises UnsupportedType (before any packet) for a column whose layout is not read."""
        blocks = split_blocks(body)
        header = header_of(blocks[0]) if blocks else empty_block(columns_of(names_and_types))
        head = packets.data_head(self.revision)
        yield head + self.block(header), 0
        for native in blocks:
            rows = _rows(native)
            if rows:
                yield head + self.block(native), rows


def _rows(block: bytes) -> int:
    pos = 0
    while block[pos] >= 0x80:  # the column count
        pos += 1
    value = shift = 0
    for byte in block[pos + 1 :]:
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value
        shift += 7
    return value
