"""Compressed frames of the native protocol (src/Compression/CompressedReadBufferBase.cpp,
CompressedWriteBuffer.cpp): a 16-byte CityHash128 (CityHash v1.0.2, as ClickHouse ships it) of the rest, the
method byte, the frame's size with its 9-byte header, the data's size, then the data in that method. A block
is written as frames of at most `max_compress_block_size` bytes of data each."""

import struct

import lz4.block
from clickhouse_cityhash.cityhash import CityHash128

from harborlight.sqlport.native_tcp.protocol import METHOD_LZ4, METHOD_NONE, METHOD_ZSTD
from harborlight.sqlport.native_tcp.wire import ProtocolError, Reader

try:
    from compression import zstd  # Python 3.14
except ImportError:
    from backports import zstd

HEADER = 9  # method byte, compressed size, decompressed size
FRAME_DATA = 1 << 20  # ClickHouse's max_compress_block_size default
MAX_FRAME = 1 << 30  # larger sizes are a broken stream
_SIZES = struct.Struct("<BII")
_MASK = (1 << 64) - 1
METHODS = {"lz4": METHOD_LZ4, "lz4hc": METHOD_LZ4, "zstd": METHOD_ZSTD, "none": METHOD_NONE}


def _checksum(frame: bytes) -> bytes:
    value = CityHash128(frame)
    return struct.pack("<QQ", value >> 64, value & _MASK)


def _compress_frame(data: bytes, method: int, level: int) -> bytes:
    if method == METHOD_LZ4:
        payload = lz4.block.compress(data, store_size=False)
    elif method == METHOD_ZSTD:
        payload = zstd.compress(data, level=level)
    else:
        payload = data
    frame = _SIZES.pack(method, HEADER + len(payload), len(data)) + payload
    return _checksum(frame) + frame


def compress(data: bytes, method: int, level: int = 1) -> bytes:
    """`data` as compressed frames in `method`."""
    return b"".join(
        _compress_frame(data[i : i + FRAME_DATA], method, level) for i in range(0, max(len(data), 1), FRAME_DATA)
    )


async def read_frame(reader: Reader) -> tuple[bytes, int]:
    """One frame's data and its method byte, its checksum checked."""
    checksum = await reader.exactly(16)
    header = await reader.exactly(HEADER)
    method, size, decompressed = _SIZES.unpack(header)
    if size < HEADER or size > MAX_FRAME or decompressed > MAX_FRAME:
        raise ProtocolError(f"a compressed frame of {size} bytes ({decompressed} decompressed)")
    payload = await reader.exactly(size - HEADER)
    if _checksum(header + payload) != checksum:
        raise ProtocolError("Checksum doesn't match: corrupted data")
    try:
        if method == METHOD_LZ4:
            data = lz4.block.decompress(payload, uncompressed_size=decompressed)
        elif method == METHOD_ZSTD:
            data = zstd.decompress(payload)
        elif method == METHOD_NONE:
            data = payload
        else:
            raise ProtocolError(f"Unknown compression method: {method:#x}")
    except (lz4.block.LZ4BlockError, zstd.ZstdError) as exc:
        raise ProtocolError(f"cannot decompress a frame: {exc}") from None
    if len(data) != decompressed:
        raise ProtocolError("a compressed frame's data is not its declared size")
    return data, method
