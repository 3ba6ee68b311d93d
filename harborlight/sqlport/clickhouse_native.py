"""ClickHouse's Native format at a client's protocol revision, made from the engine's revision-0 Native.

A ClickHouse server writes Native for the revision an HTTP client names in `client_protocol_version`: from
revision 1 each block starts with its BlockInfo, from 54454 each column's type name is followed by a byte
saying whether the column uses a custom serialization, before 54337 a top-level `DateTime('zone')` is named
`DateTime`, and before 54405 LowCardinality is sent as its inner type. The embedded engine (chDB 26.9) writes
revision 0 only: its output format is made from the client context of chDB's ClientBase, whose protocol
version nothing sets (there is no such setting: `SET client_protocol_version` is UNKNOWN_SETTING; a
connection-string parameter and `file(..., 'Native')` leave the bytes as they are). So this module inserts
what a higher revision adds; finding where a column's data ends means reading its layout, as described in
the engine's own format description (`SELECT description FROM system.formats WHERE name = 'Native'`).
LowCardinality for revisions before 54405 is removed by the engine itself (`low_cardinality_allow_in_native_format
= 0`, see `settings_for`). Pure: bytes in, bytes out.
"""

import re
import struct

CUSTOM_SERIALIZATION = 54454  # DBMS_MIN_REVISION_WITH_CUSTOM_SERIALIZATION
LOW_CARDINALITY = 54405  # DBMS_MIN_REVISION_WITH_LOW_CARDINALITY_TYPE
TIME_ZONE_IN_DATETIME = 54337  # DBMS_MIN_REVISION_WITH_TIME_ZONE_PARAMETER_IN_DATETIME_DATA_TYPE
OUT_OF_ORDER_BUCKETS = 54480  # BlockInfo field 3 (an empty list for a plain block)
# The highest revision answered exactly: from 54492 on, String columns carry a separate size stream.
HIGHEST_REVISION = 54491

_FIXED = {
    "UInt8": 1,
    "Int8": 1,
    "Bool": 1,
    "Boolean": 1,
    "Enum8": 1,
    "Nothing": 1,
    "UInt16": 2,
    "Int16": 2,
    "Enum16": 2,
    "Date": 2,
    "BFloat16": 2,
    "UInt32": 4,
    "Int32": 4,
    "Float32": 4,
    "Date32": 4,
    "DateTime": 4,
    "IPv4": 4,
    "Time": 4,
    "Decimal32": 4,
    "UInt64": 8,
    "Int64": 8,
    "Float64": 8,
    "DateTime64": 8,
    "Time64": 8,
    "Decimal64": 8,
    "UInt128": 16,
    "Int128": 16,
    "UUID": 16,
    "IPv6": 16,
    "Decimal128": 16,
    "UInt256": 32,
    "Int256": 32,
    "Decimal256": 32,
}
_ALIASES = {  # geo types are stored as these
    "Point": "Tuple(Float64, Float64)",
    "Ring": "Array(Point)",
    "LineString": "Array(Point)",
    "MultiLineString": "Array(LineString)",
    "Polygon": "Array(Ring)",
    "MultiPolygon": "Array(Polygon)",
}
_U64 = struct.Struct("<Q")
_LC_KEY_WIDTH = (1, 2, 4, 8)
_LC_HAS_ADDITIONAL_KEYS = 1 << 9


class UnsupportedType(Exception):
    """A column type whose Native layout this module does not read (Variant, Dynamic, JSON, aggregate states)."""


class _Type:
    __slots__ = ("name", "args")

    def __init__(self, text: str) -> None:
        text = _ALIASES.get(text, text)
        head, paren, rest = text.partition("(")
        self.name = head.strip()
        self.args = _split_arguments(rest[:-1]) if paren else []


def _split_arguments(text: str) -> list[str]:
    """Top-level comma-separated arguments of a type name (quotes and nested parentheses respected)."""
    args, depth, quote, start, i = [], 0, "", 0, 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'`\"":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "," and depth == 0:
            args.append(text[start:i].strip())
            start = i + 1
        i += 1
    args.append(text[start:].strip())
    return [a for a in args if a]


def _element_type(arg: str) -> str:
    """A tuple element's type: `name Type` (a named tuple) or `Type`."""
    if arg.startswith("`"):
        return arg[arg.index("`", 1) + 1 :].strip()
    name, space, rest = arg.partition(" ")
    return rest.strip() if space and "(" not in name else arg


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def _string_end(data: bytes, pos: int) -> int:
    size, pos = _varint(data, pos)
    return pos + size


def _skip_strings(data: bytes, pos: int, rows: int) -> int:
    """The position after `rows` length-prefixed strings (the hot loop: most lengths are one byte)."""
    for _ in range(rows):
        size = data[pos]
        if size < 0x80:
            pos += 1 + size
        else:
            size, pos = _varint(data, pos)
            pos += size
    return pos


def _fixed_size(t: _Type) -> int | None:
    if t.name in _FIXED:
        return _FIXED[t.name]
    if t.name == "Decimal":
        precision = int(t.args[0])
        return 4 if precision <= 9 else 8 if precision <= 18 else 16 if precision <= 38 else 32
    if t.name == "FixedString":
        return int(t.args[0])
    if t.name.startswith("Interval"):
        return 8
    return None


def _skip_prefix(t: _Type, data: bytes, pos: int) -> int:
    """The bulk-state prefix written before a column's data: LowCardinality's key version, nested ones in order."""
    if t.name == "LowCardinality":
        return pos + 8
    for inner in _nested(t):
        pos = _skip_prefix(inner, data, pos)
    return pos


def _nested(t: _Type) -> list[_Type]:
    if t.name in ("Array", "Nullable"):
        return [_Type(t.args[0])]
    if t.name == "Map":
        return [_Type(t.args[0]), _Type(t.args[1])]
    if t.name == "Tuple":
        return [_Type(_element_type(a)) for a in t.args]
    if t.name == "SimpleAggregateFunction":
        return [_Type(t.args[-1])]
    return []


def _skip_data(t: _Type, rows: int, data: bytes, pos: int) -> int:
    """The position after `rows` values of type `t` in bulk serialization."""
    size = _fixed_size(t)
    if size is not None:
        return pos + size * rows
    if t.name == "String":
        return _skip_strings(data, pos, rows)
    if t.name == "Nullable":
        return _skip_data(_Type(t.args[0]), rows, data, pos + rows)
    if t.name in ("Array", "Map"):
        end = pos + 8 * rows
        elements = _U64.unpack_from(data, end - 8)[0] if rows else 0
        for inner in _nested(t):
            end = _skip_data(inner, elements, data, end)
        return end
    if t.name == "Tuple":
        if not t.args:  # an empty tuple is one placeholder byte a row
            return pos + rows
        for inner in _nested(t):
            pos = _skip_data(inner, rows, data, pos)
        return pos
    if t.name == "SimpleAggregateFunction":
        return _skip_data(_nested(t)[0], rows, data, pos)
    if t.name == "LowCardinality":
        return _skip_low_cardinality(_Type(t.args[0]), rows, data, pos)
    raise UnsupportedType(t.name)


def _skip_low_cardinality(inner: _Type, rows: int, data: bytes, pos: int) -> int:
    """Granules of (index type, optional dictionary keys, indexes) until `rows` indexes are read. The keys of
    LowCardinality(Nullable(T)) are written as T."""
    keys = _Type(inner.args[0]) if inner.name == "Nullable" else inner
    while rows > 0:
        index_type = _U64.unpack_from(data, pos)[0]
        pos += 8
        if index_type & _LC_HAS_ADDITIONAL_KEYS:
            count = _U64.unpack_from(data, pos)[0]
            pos = _skip_data(keys, count, data, pos + 8)
        granule = _U64.unpack_from(data, pos)[0]
        pos += 8 + granule * _LC_KEY_WIDTH[index_type & 0xFF]
        rows -= granule
    return pos


def _block_info(revision: int) -> bytes:
    """BlockInfo of a plain block: is_overflows = false (field 1), bucket_num = -1 (field 2), then field 0."""
    info = b"\x01\x00\x02\xff\xff\xff\xff"
    if revision >= OUT_OF_ORDER_BUCKETS:
        info += b"\x03\x00"  # out_of_order_buckets: none
    return info + b"\x00"


_DATETIME_WITH_ZONE = re.compile(rb"^DateTime\(")


def reframe(data: bytes, revision: int) -> bytes:
    """Revision-0 Native blocks rewritten as the engine would write them for a client at `revision`
    (at most HIGHEST_REVISION). Raises UnsupportedType for a column whose layout is not read here."""
    if revision <= 0 or not data:
        return data
    revision = min(revision, HIGHEST_REVISION)
    info = _block_info(revision)
    out, pos = bytearray(), 0
    while pos < len(data):
        block_start = pos
        columns, pos = _varint(data, pos)
        rows, pos = _varint(data, pos)
        out += info
        out += data[block_start:pos]  # the column and row counts
        for _ in range(columns):
            name_end = _string_end(data, pos)
            out += data[pos:name_end]
            type_start = name_end
            type_end = _string_end(data, type_start)
            type_name = data[_varint(data, type_start)[1] : type_end]
            if revision < TIME_ZONE_IN_DATETIME and _DATETIME_WITH_ZONE.match(type_name):
                out += b"\x08DateTime"
            else:
                out += data[type_start:type_end]
            if revision >= CUSTOM_SERIALIZATION:
                out.append(0)  # the default serialization: sparse columns reach revision 0 made full
            column = _Type(type_name.decode())
            data_end = _skip_data(column, rows, data, _skip_prefix(column, data, type_end)) if rows else type_end
            out += data[type_end:data_end]
            pos = data_end
    return bytes(out)


def settings_for(revision: int) -> dict[str, str]:
    """Engine settings that make its revision-0 output what `reframe` needs for `revision`."""
    if 0 < revision < LOW_CARDINALITY:
        return {"low_cardinality_allow_in_native_format": "0"}
    return {}


def split_blocks(data: bytes) -> list[bytes]:
    """Revision-0 Native cut into its blocks, each still revision-0 Native (the native TCP protocol sends a
    packet per block). Raises UnsupportedType for a column whose layout is not read here."""
    blocks, pos = [], 0
    while pos < len(data):
        start = pos
        columns, pos = _varint(data, pos)
        rows, pos = _varint(data, pos)
        for _ in range(columns):
            type_start = _string_end(data, pos)
            type_end = _string_end(data, type_start)
            if rows:
                column = _Type(data[_varint(data, type_start)[1] : type_end].decode())
                pos = _skip_data(column, rows, data, _skip_prefix(column, data, type_end))
            else:
                pos = type_end
        blocks.append(data[start:pos])
    return blocks


def empty_block(columns: list[tuple[str, str]]) -> bytes:
    """A revision-0 Native block of no rows with these (name, type) columns: what a client is told of an
    answer's columns before (or without) its rows."""
    out = bytearray(_varint_bytes(len(columns)) + b"\x00")
    for name, type_name in columns:
        for text in (name.encode(), type_name.encode()):
            out += _varint_bytes(len(text)) + text
    return bytes(out)


def header_of(block: bytes) -> bytes:
    """The no-rows block with the columns of a revision-0 Native block."""
    columns, pos = _varint(block, 0)
    rows, pos = _varint(block, pos)
    names = []
    for _ in range(columns):
        name_end = _string_end(block, pos)
        type_end = _string_end(block, name_end)
        type_name = block[_varint(block, name_end)[1] : type_end].decode()
        names.append((block[_varint(block, pos)[1] : name_end].decode(), type_name))
        column = _Type(type_name)
        pos = _skip_data(column, rows, block, _skip_prefix(column, block, type_end)) if rows else type_end
    return empty_block(names)


def _varint_bytes(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)
