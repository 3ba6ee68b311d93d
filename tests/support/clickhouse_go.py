"""A ClickHouse HTTP client that sends and decodes exactly as clickhouse-go v2.47 does over HTTP, the driver of
Grafana's ClickHouse data source (grafana-clickhouse-datasource 4.20 pins clickhouse-go v2.47.0).

Written from clickhouse-go v2.47.0's source (conn_http.go: dialHttp, queryHello, ping, readData, NewReader;
conn_http_query.go; lib/proto/block.go: Block.Decode, decodeBlockInfo; lib/column/*.go: each column's
ReadStatePrefix and Decode; ch-go's proto.Reader) and ClickHouse's description of the Native format
(`system.formats`, row 'Native'), never from harborlight's writer:

- every request is `POST <url>?client_protocol_version=54460&database=default&default_format=Native` plus the
  driver's settings (`max_execution_time` = the query deadline + 5 s), the statement as the body, HTTP basic
  auth, `Accept-Encoding: gzip` (the plugin's HTTP compression); the body is gunzipped only when the answer
  says `Content-Encoding: gzip`; an answer other than 200 is the error `[HTTP n] response body: "..."`;
- connecting runs `SELECT displayName(), version(), revision(), timezone()` and decodes it at revision 54460;
  every later answer is decoded at the revision the server reported;
- at a revision above 0 each block starts with BlockInfo (field number, is_overflows as a boolean byte, field
  number, bucket_num Int32, field number 0); from 54454 each column's type name is followed by a boolean
  byte, and 1 (a custom serialization) is an error; a byte other than 0 or 1 where a boolean is read is
  "unexpected value N for boolean"; an empty body is an empty result with no columns;
- ping is `SELECT 1` and must answer one column named `1`.
"""

import base64
import datetime as dt
import decimal
import gzip
import ipaddress
import struct
import uuid
from dataclasses import dataclass, field
from itertools import pairwise
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

import httpx

CLIENT_TCP_PROTOCOL_VERSION = 54460  # lib/proto/const.go: DBMS_TCP_PROTOCOL_VERSION
MIN_REVISION_WITH_CUSTOM_SERIALIZATION = 54454


class DriverError(Exception):
    """What clickhouse-go returns as an error: a decode failure or the server's refusal."""


class _Reader:
    """ch-go's proto.Reader over a whole body."""

    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def at_end(self) -> bool:
        return self.pos >= len(self.data)

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise DriverError("unexpected EOF")
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def uvarint(self) -> int:
        value = shift = 0
        while True:
            byte = self.take(1)[0]
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                return value
            shift += 7

    def boolean(self) -> bool:
        byte = self.take(1)[0]
        if byte > 1:
            raise DriverError(f"unexpected value {byte} for boolean")
        return byte == 1

    def str(self) -> str:
        return self.take(self.uvarint()).decode(errors="replace")  # Go strings are bytes: no UTF-8 check

    def unpack(self, fmt: str, rows: int) -> list:
        size = struct.calcsize(fmt)
        return [v[0] for v in struct.iter_unpack("<" + fmt, self.take(size * rows))] if rows else []


def _params(text: str) -> list[str]:
    """A type's parameters, split at top-level commas (Type.params() and the tuple parser)."""
    inner = text[text.index("(") + 1 : text.rindex(")")]
    out, depth, quote, current = [], 0, False, ""
    for c in inner:
        if c == "'":
            quote = not quote
        if not quote and c == "(":
            depth += 1
        if not quote and c == ")":
            depth -= 1
        if c == "," and depth == 0 and not quote:
            out.append(current.strip())
            current = ""
        else:
            current += c
    if current.strip():
        out.append(current.strip())
    return out


@dataclass
class _Column:
    """One column type: decode() reads `rows` values (ReadStatePrefix is prefix())."""

    type: str
    server_tz: dt.tzinfo

    def prefix(self, r: _Reader) -> None:
        t = self.type
        if t.startswith("LowCardinality(") and r.unpack("Q", 1)[0] != 1:  # sharedDictionariesWithAdditionalKeys
            raise DriverError("invalid key serialization version value")
        for inner in self._nested():
            inner.prefix(r)

    def _nested(self) -> list["_Column"]:
        t = self.type
        if t.startswith(("Array(", "Nullable(", "SimpleAggregateFunction(")):
            return [_Column(_params(t)[-1], self.server_tz)]
        if t.startswith("Map("):
            return [_Column(p, self.server_tz) for p in _params(t)]
        if t.startswith("Tuple("):
            return [_Column(_tuple_element(p)[1], self.server_tz) for p in _params(t)]
        return []

    def decode(self, r: _Reader, rows: int) -> list:  # noqa: C901 - one branch per column type, as column_gen.go
        t = self.type
        fixed = {
            "Int8": "b",
            "Int16": "h",
            "Int32": "i",
            "Int64": "q",
            "UInt8": "B",
            "UInt16": "H",
            "UInt32": "I",
            "UInt64": "Q",
            "Float32": "f",
            "Float64": "d",
        }
        if t in fixed:
            return r.unpack(fixed[t], rows)
        if t in ("Bool", "Boolean"):
            return [r.boolean() for _ in range(rows)]
        if t == "String":
            return [r.take(r.uvarint()).decode(errors="replace") for _ in range(rows)]
        if t == "Nothing":
            r.take(rows)
            return [None] * rows
        if t in ("UInt128", "Int128", "UInt256", "Int256"):
            size, signed = (16 if "128" in t else 32), not t.startswith("U")
            return [int.from_bytes(r.take(size), "little", signed=signed) for _ in range(rows)]
        if t == "UUID":  # two little-endian 64-bit halves
            return [uuid.UUID(bytes=(lambda b: b[7::-1] + b[:7:-1])(r.take(16))) for _ in range(rows)]
        if t == "IPv4":
            return [ipaddress.IPv4Address(v) for v in r.unpack("I", rows)]
        if t == "IPv6":
            return [ipaddress.IPv6Address(r.take(16)) for _ in range(rows)]
        if t == "Date":
            return [dt.date(1970, 1, 1) + dt.timedelta(days=v) for v in r.unpack("H", rows)]
        if t == "Date32":
            return [dt.date(1970, 1, 1) + dt.timedelta(days=v) for v in r.unpack("i", rows)]
        if t.startswith("DateTime64("):
            params = _params(t)
            scale, tz = 10 ** int(params[0]), self._zone(params[1:])
            return [
                dt.datetime.fromtimestamp(v // scale, tz) + dt.timedelta(microseconds=(v % scale) * 1_000_000 // scale)
                for v in r.unpack("q", rows)
            ]
        if t == "DateTime" or t.startswith("DateTime("):
            tz = self._zone(_params(t) if "(" in t else [])
            return [dt.datetime.fromtimestamp(v, tz) for v in r.unpack("I", rows)]
        if t.startswith(("Enum8(", "Enum16(")):
            names = {int(v.rpartition("=")[2]): v.rpartition("=")[0].strip()[1:-1] for v in _params(t)}
            return [names[v] for v in r.unpack("b" if t.startswith("Enum8") else "h", rows)]
        if t.startswith("Decimal("):
            precision, scale = (int(p) for p in _params(t))
            size = 4 if precision <= 9 else 8 if precision <= 18 else 16 if precision <= 38 else 32
            return [
                decimal.Decimal(int.from_bytes(r.take(size), "little", signed=True)).scaleb(-scale) for _ in range(rows)
            ]
        if t.startswith("FixedString("):
            size = int(_params(t)[0])
            return [r.take(size) for _ in range(rows)]
        if t.startswith("Nullable("):
            nulls = r.take(rows)
            values = self._nested()[0].decode(r, rows)
            return [None if n else v for n, v in zip(nulls, values, strict=True)]
        if t.startswith("SimpleAggregateFunction("):
            return self._nested()[0].decode(r, rows)
        if t.startswith("Array("):
            offsets = r.unpack("Q", rows)
            values = self._nested()[0].decode(r, offsets[-1] if offsets else 0)
            return [values[a:b] for a, b in pairwise([0, *offsets])]
        if t.startswith("Map("):
            offsets = r.unpack("Q", rows)
            size = offsets[-1] if offsets else 0
            keys_column, values_column = self._nested()
            keys, values = keys_column.decode(r, size), values_column.decode(r, size)
            return [dict(zip(keys[a:b], values[a:b], strict=True)) for a, b in pairwise([0, *offsets])]
        if t.startswith("Tuple("):
            columns = [c.decode(r, rows) for c in self._nested()]
            return [tuple(c[i] for c in columns) for i in range(rows)]
        if t.startswith("LowCardinality("):
            return self._low_cardinality(r, rows)
        raise DriverError(f"clickhouse: unsupported column type {t!r}")

    def _low_cardinality(self, r: _Reader, rows: int) -> list:
        if rows == 0:  # nothing is written for no rows (an empty map's keys)
            return []
        serialization = r.unpack("Q", 1)[0]
        key = serialization & 0xFF
        if key > 3:
            raise DriverError("invalid index serialization version value")
        if not serialization & (1 << 9):
            raise DriverError("additional keys bit is missing")
        inner = _params(self.type)[0]
        nullable = inner.startswith("Nullable(")
        dictionary_type = _params(inner)[0] if nullable else inner
        dictionary = _Column(dictionary_type, self.server_tz).decode(r, r.unpack("q", 1)[0])
        indexes = r.unpack("BHIQ"[key], r.unpack("q", 1)[0])
        return [None if nullable and i == 0 else dictionary[i] for i in indexes]

    def _zone(self, params: list[str]) -> dt.tzinfo:
        return ZoneInfo(params[0].strip("'")) if params else self.server_tz


def _tuple_element(text: str) -> tuple[str, str]:
    """(name, type) of a tuple element, as Tuple.parse splits it."""
    name, space, rest = text.partition(" ")
    return (name, rest.strip()) if space and "(" not in name else ("", text)


@dataclass
class Result:
    columns: list[str]
    types: list[str]
    rows: list[tuple]

    def dicts(self) -> list[dict]:
        return [dict(zip(self.columns, r, strict=True)) for r in self.rows]


def decode_block(r: _Reader, revision: int, server_tz: dt.tzinfo) -> Result:
    """Block.Decode: one block (BlockInfo at a revision above 0, then its columns)."""
    if revision > 0:  # decodeBlockInfo
        r.uvarint()
        r.boolean()
        r.uvarint()
        r.unpack("i", 1)
        r.uvarint()
    num_columns, num_rows = r.uvarint(), r.uvarint()
    values, names, block_types = [], [], []
    for _ in range(num_columns):
        name, type_name = r.str(), r.str()
        if revision >= MIN_REVISION_WITH_CUSTOM_SERIALIZATION and r.boolean():
            raise DriverError(f"custom serialization for column {name}. not supported by clickhouse-go driver")
        column = _Column(type_name, server_tz)
        if num_rows:
            column.prefix(r)
            values.append(column.decode(r, num_rows))
        else:
            values.append([])
        names.append(name)
        block_types.append(type_name)
    return Result(names, block_types, list(zip(*values, strict=True)) if values else [])


def decode_blocks(body: bytes, revision: int, server_tz: dt.tzinfo) -> Result:
    """Block.Decode, block after block, as readData does while rows are read."""
    r = _Reader(body)
    columns: list[str] = []
    types: list[str] = []
    rows: list[tuple] = []
    while not r.at_end():
        block = decode_block(r, revision, server_tz)
        if not columns:
            columns, types = block.columns, block.types
        rows.extend(block.rows)
    return Result(columns, types, rows)


@dataclass
class ServerHandshake:
    display_name: str
    version: str
    revision: int
    timezone: dt.tzinfo


@dataclass
class ClickHouseGo:
    """One HTTP connection of clickhouse-go to `host:port`, opened as the Grafana plugin opens it."""

    port: int
    password: str = ""
    username: str = "default"
    database: str = "default"
    host: str = "127.0.0.1"
    query_timeout_s: int = 60  # the plugin's query timeout: the context deadline behind max_execution_time
    settings: dict[str, str] = field(default_factory=dict)
    revision: int = CLIENT_TCP_PROTOCOL_VERSION  # "Preflight uses hardcoded revision"
    handshake: ServerHandshake | None = None
    # kept open across requests, as Go's transport keeps its connections (a new httpx client per request, the
    # default, costs ~30 ms of set-up: too much for a benchmark, no matter to a test)
    http: httpx.Client | None = None

    def connect(self) -> "ClickHouseGo":
        hello = self.query("SELECT displayName(), version(), revision(), timezone()")
        if not hello.rows:
            raise DriverError("no rows returned for server hello query")
        name, version, revision, tz = hello.rows[0]
        self.handshake = ServerHandshake(name, version, int(revision), ZoneInfo(tz))
        self.revision = self.handshake.revision
        return self

    def ping(self) -> None:
        if self.query("SELECT 1").columns != ["1"]:
            raise DriverError("clickhouse [ping]:: cannot ping clickhouse")

    def post(self, sql: str, settings: dict[str, str] | None = None) -> tuple[httpx.Response, bytes]:
        """The answer and its body as sent (Go's transport with DisableCompression decodes nothing itself)."""
        params = {
            "client_protocol_version": str(CLIENT_TCP_PROTOCOL_VERSION),
            "database": self.database,
            "default_format": "Native",
            **self.settings,
            "max_execution_time": str(self.query_timeout_s + 5),
            **(settings or {}),
        }
        auth = base64.b64encode(f"{self.username}:{self.password}".encode()).decode()
        with (self.http or httpx).stream(
            "POST",
            f"http://{self.host}:{self.port}/?{urlencode(sorted(params.items()))}",
            content=sql.encode(),
            timeout=self.query_timeout_s,
            headers={
                "Authorization": f"Basic {auth}",
                "Accept-Encoding": "gzip",
                "User-Agent": "clickhouse-go/2.47.0 (database/sql; lv:go/1.25)",
            },
        ) as answer:
            return answer, b"".join(answer.iter_raw())

    def query(self, sql: str, settings: dict[str, str] | None = None) -> Result:
        answer, raw = self.post(sql, settings)
        body = gzip.decompress(raw) if answer.headers.get("content-encoding") == "gzip" else raw
        if answer.status_code != 200:
            raise DriverError(f'[HTTP {answer.status_code}] response body: "{body.decode(errors="replace")}"')
        if not body:
            return Result([], [], [])
        tz = self.handshake.timezone if self.handshake else dt.UTC
        try:
            return decode_blocks(body, self.revision, tz)
        except (DriverError, struct.error, UnicodeDecodeError, ValueError, IndexError, KeyError) as exc:
            if b"__exception__" in body:
                raise DriverError(f"ClickHouse exception: {body.decode(errors='replace')}") from exc
            raise DriverError(f"block decode: {exc}") from exc


def open_grafana_connection(port: int, password: str = "", **kwargs) -> ClickHouseGo:
    """What the plugin's Connect does: open (the hello query) and ping."""
    connection = ClickHouseGo(port, password, **kwargs).connect()
    connection.ping()
    return connection
