"""Compressed frames as clickhouse-driver frames and reads them (its compressors and its checksum check are the
oracle), and a frame whose checksum does not match is refused."""

import asyncio
import io

import pytest
from clickhouse_cityhash.cityhash import CityHash128
from clickhouse_driver.compression import get_compressor_cls, get_decompressor_cls
from clickhouse_driver.reader import read_binary_uint8, read_binary_uint128
from clickhouse_driver.writer import write_binary_uint128

from harborlight.sqlport.native_tcp.compression import compress, read_frame
from harborlight.sqlport.native_tcp.protocol import METHOD_LZ4, METHOD_NONE, METHOD_ZSTD
from harborlight.sqlport.native_tcp.wire import ProtocolError, Reader

DATA = b"".join(b"row %d, " % i for i in range(300_000))  # 3.3 MB: four frames of at most 1 MiB


def _read(data: bytes):
    async def go():
        stream = asyncio.StreamReader()
        stream.feed_data(data)
        stream.feed_eof()
        reader, out = Reader(stream), []
        while not stream.at_eof():
            out.append(await read_frame(reader))
        return out

    return asyncio.run(go())


def _driver_reads(frames: bytes) -> bytes:
    """clickhouse-driver's CompressedBlockInputStream.read_block, frame after frame."""
    stream, out = io.BytesIO(frames), []
    while stream.tell() < len(frames):
        checksum, method = read_binary_uint128(stream), read_binary_uint8(stream)
        out.append(get_decompressor_cls(method)(stream).get_decompressed_data(method, checksum, 1))
    return b"".join(out)


@pytest.mark.parametrize("method", [METHOD_LZ4, METHOD_ZSTD])
def test_our_frames_are_what_the_driver_reads(method):
    frames = compress(DATA, method)
    assert _driver_reads(frames) == DATA
    assert [m for _, m in _read(frames)] == [method] * 4


def test_uncompressed_frames_read_back():  # method 0x02 (clickhouse-driver does not write or read it)
    assert [data for data, _ in _read(compress(DATA, METHOD_NONE))] == [
        DATA[i : i + (1 << 20)] for i in range(0, len(DATA), 1 << 20)
    ]


@pytest.mark.parametrize("name", ["lz4", "zstd"])
def test_the_drivers_frames_are_what_we_read(name):
    compressor = get_compressor_cls(name)()
    compressor.write(DATA[:100_000])
    body = bytes([compressor.method_byte]) + compressor.get_compressed_data(1)
    out = io.BytesIO()  # CompressedBlockOutputStream.finalize: the checksum, then the frame
    write_binary_uint128(CityHash128(body), out)
    frame = out.getvalue() + body
    ((data, method),) = _read(frame)
    assert data == DATA[:100_000] and method == compressor.method_byte


def test_a_frame_with_a_wrong_checksum_is_refused():
    frame = bytearray(compress(b"SELECT 1", METHOD_LZ4))
    frame[-1] ^= 0xFF
    with pytest.raises(ProtocolError, match="Checksum"):
        _read(bytes(frame))
