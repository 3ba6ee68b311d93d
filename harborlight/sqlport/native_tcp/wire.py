"""The primitives of the native protocol: LEB128 varints, length-prefixed strings and little-endian numbers,
read from a connection (async) and written into bytes (pure)."""

import asyncio
import struct

_U32, _I32, _U64, _I64 = struct.Struct("<I"), struct.Struct("<i"), struct.Struct("<Q"), struct.Struct("<q")
MAX_STRING = 256 << 20  # a string longer than this is a broken stream, not a statement


class ProtocolError(Exception):
    """The client sent what the protocol does not allow; the connection cannot go on."""


class Reader:
    """Reads the primitives from a stream."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self._stream = stream

    async def exactly(self, n: int) -> bytes:
        return await self._stream.readexactly(n)

    async def varint(self) -> int:
        value = shift = 0
        while True:
            byte = (await self._stream.readexactly(1))[0]
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                return value
            shift += 7
            if shift > 63:
                raise ProtocolError("a varint longer than 64 bits")

    async def string_bytes(self) -> bytes:
        size = await self.varint()
        if size > MAX_STRING:
            raise ProtocolError(f"a string of {size} bytes")
        return await self._stream.readexactly(size)

    async def string(self) -> str:
        return (await self.string_bytes()).decode("utf-8", "replace")

    async def uint8(self) -> int:
        return (await self._stream.readexactly(1))[0]

    async def uint32(self) -> int:
        return _U32.unpack(await self._stream.readexactly(4))[0]

    async def int64(self) -> int:
        return _I64.unpack(await self._stream.readexactly(8))[0]


def varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def string(value: str | bytes) -> bytes:
    data = value.encode() if isinstance(value, str) else value
    return varint(len(data)) + data


def uint8(value: int) -> bytes:
    return bytes((value,))


def int32(value: int) -> bytes:
    return _I32.pack(value)


def uint32(value: int) -> bytes:
    return _U32.pack(value)


def uint64(value: int) -> bytes:
    return _U64.pack(value)


class BytesReader:
    """The primitives from bytes in memory (a decompressed block)."""

    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise ProtocolError("a block ends early")
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def varint(self) -> int:
        value = shift = 0
        while True:
            byte = self.take(1)[0]
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                return value
            shift += 7

    def string(self) -> str:
        return self.take(self.varint()).decode("utf-8", "replace")
