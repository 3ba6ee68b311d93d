"""Whether an OTLP request may hold an array or kvlist value, from its bytes alone.

Such a request is read in Python as it is committed, each array or kvlist value replaced by its stored
text (harborlight/commit/structured_values.py); every other request goes to the engine as it came. The check never
misses a nested value of a canonically encoded request: an attribute value (field 0x12 of KeyValue) or a log body (field 0x2A of LogRecord)
whose payload is exactly one array_value (0x2A) or kvlist_value (0x32) field, empty or opening with
its first element (0x0A). Bytes that merely look like that (inside an id or a string) send a request
through Python, which is always correct, just slower.
"""

import re
import struct

import pyarrow as pa
import pyarrow.compute as pc

# RE2 (through Arrow, over the bytes without copying them, GIL released) screens fast; each hit is
# then checked exactly, lengths included. Over binary, RE2 reads bytes as Latin-1: \xNN is byte NN.
_VARINT = r"[\x80-\xff]{0,4}[\x00-\x7f]"
_SCREEN = r"[\x12\x2a]" + _VARINT + r"[\x2a\x32](\x00|" + _VARINT + r"\x0a)"
_EXACT = re.compile(rb"[\x12\x2a]([\x80-\xff]{0,4}[\x00-\x7f])[\x2a\x32]([\x80-\xff]{0,4}[\x00-\x7f])", re.DOTALL)


def _varint(raw: bytes) -> int:
    return sum((byte & 0x7F) << (7 * i) for i, byte in enumerate(raw))


def _nested_value_at(data: bytes, at: int) -> bool:
    match = _EXACT.match(data, at)
    if not match:
        return False
    outer, inner = _varint(match.group(1)), _varint(match.group(2))
    return outer == 1 + len(match.group(2)) + inner and (inner == 0 or data[match.end() : match.end() + 1] == b"\x0a")


def _tail(buffer: pa.Buffer, start: int) -> pa.Array:
    """The bytes from `start` on, as a one-element binary array over the same memory."""
    offsets = pa.py_buffer(struct.pack("<qq", start, buffer.size))
    return pa.Array.from_buffers(pa.large_binary(), 1, [None, offsets, buffer])


def may_hold_nested_values(data: bytes) -> bool:
    buffer = pa.py_buffer(data)
    start = 0
    while start < len(data):
        found = pc.find_substring_regex(_tail(buffer, start), pattern=_SCREEN)[0].as_py()
        if found < 0:
            return False
        if _nested_value_at(data, start + found):
            return True
        start += found + 1
    return False
