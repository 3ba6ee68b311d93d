"""A ClickHouse native-protocol client that sends and decodes exactly as clickhouse-go v2 does over TCP
(`protocol=native`, the Grafana ClickHouse data source's default), at its revision 54460.

Written from clickhouse-go's source (conn_handshake.go: handshake, sendAddendum; lib/proto/handshake.go:
ClientHandshake.Encode, ServerHandshake.Decode, which reads the hello's optional fields by the *server's*
revision; conn_send_query.go and lib/proto/query.go: Query.Encode with its client info, settings as strings with
flags, parameters as custom settings holding a Field dump; conn.go: sendData, readData; conn_process.go: the
packets a query's answer may hold; conn_ping.go; lib/proto/progress.go, profile_info.go, exception.go) and ch-go's
compress package (a frame: CityHash128 of the rest, method byte, sizes, data), never from harborlight's server.
Blocks are decoded by tests/support/clickhouse_go.py's column decoders, at the agreed revision.
"""

import datetime as dt
import socket
import struct
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

import lz4.block
from clickhouse_cityhash.cityhash import CityHash128

from tests.support.clickhouse_go import DriverError, Result, _Reader, decode_block

try:
    from compression import zstd
except ImportError:
    from backports import zstd

REVISION = 54460  # ClientTCPProtocolVersion
CLIENT_NAME = "clickhouse-go/2.47.0 (lv:go/1.25; os:linux) grafana-datasource/4.20.0"
CLIENT_HELLO, CLIENT_QUERY, CLIENT_DATA, CLIENT_CANCEL, CLIENT_PING = 0, 1, 2, 3, 4
(
    SERVER_HELLO,
    SERVER_DATA,
    SERVER_EXCEPTION,
    SERVER_PROGRESS,
    SERVER_PONG,
    SERVER_END_OF_STREAM,
    SERVER_PROFILE_INFO,
    SERVER_TOTALS,
    SERVER_EXTREMES,
) = range(9)
SERVER_LOG, SERVER_TABLE_COLUMNS, SERVER_PROFILE_EVENTS = 10, 11, 14
METHODS = {"lz4": 0x82, "zstd": 0x90}
_MASK = (1 << 64) - 1


def _uvarint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _str(value: str) -> bytes:
    data = value.encode()
    return _uvarint(len(data)) + data


def _checksum(frame: bytes) -> bytes:
    value = CityHash128(frame)
    return struct.pack("<QQ", value >> 64, value & _MASK)


def compress_frame(data: bytes, method: str) -> bytes:
    payload = lz4.block.compress(data, store_size=False) if method == "lz4" else zstd.compress(data, level=1)
    frame = struct.pack("<BII", METHODS[method], 9 + len(payload), len(data)) + payload
    return _checksum(frame) + frame


class _SocketReader(_Reader):
    """ch-go's proto.Reader over a connection; between EnableCompression and DisableCompression it reads the
    data of compressed frames, checking each frame's checksum."""

    def __init__(self, sock: socket.socket) -> None:
        super().__init__(b"")
        self._sock = sock
        self._raw = bytearray()
        self.compressed = False
        self.frame_methods: list[int] = []

    def _raw_take(self, n: int) -> bytes:
        while len(self._raw) < n:
            chunk = self._sock.recv(1 << 16)
            if not chunk:
                raise DriverError("EOF")
            self._raw += chunk
        out = bytes(self._raw[:n])
        del self._raw[:n]
        return out

    def take(self, n: int) -> bytes:
        if not self.compressed:
            return self._raw_take(n)
        while len(self.data) - self.pos < n:
            checksum = self._raw_take(16)
            header = self._raw_take(9)
            method, size, decompressed = struct.unpack("<BII", header)
            payload = self._raw_take(size - 9)
            if _checksum(header + payload) != checksum:
                raise DriverError("compress: checksum mismatch")
            self.frame_methods.append(method)
            if method == 0x82:
                data = lz4.block.decompress(payload, uncompressed_size=decompressed)
            elif method == 0x90:
                data = zstd.decompress(payload)
            elif method == 0x02:
                data = payload
            else:
                raise DriverError(f"compress: unknown method {method:#x}")
            self.data, self.pos = self.data[self.pos :] + data, 0
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def end_compressed(self) -> None:
        if self.pos != len(self.data):
            raise DriverError("bytes left in a compressed frame after a block")
        self.data, self.pos, self.compressed = b"", 0, False


@dataclass
class ServerHello:
    name: str
    version: tuple[int, int, int]
    revision: int
    timezone: dt.tzinfo
    display_name: str


@dataclass
class Answer:
    result: Result
    blocks: int = 0  # data packets with rows
    progress: list[tuple] = field(default_factory=list)
    profile_info: tuple | None = None
    packets: list[int] = field(default_factory=list)
    totals: list[tuple] = field(default_factory=list)  # the blocks of Totals and Extremes packets (on.data)
    extremes: list[tuple] = field(default_factory=list)


class ServerError(DriverError):
    def __init__(self, code: int, name: str, message: str) -> None:
        super().__init__(f"code: {code}, message: {message}")
        self.code, self.name, self.message = code, name, message


@dataclass
class ClickHouseGoNative:
    """One native connection of clickhouse-go, opened as the Grafana plugin opens it (handshake, then ping)."""

    port: int
    password: str = ""
    username: str = "default"
    database: str = "default"
    compression: str | None = None  # "lz4" / "zstd": clickhouse.Compression{Method}
    settings: dict[str, str] = field(default_factory=dict)
    query_timeout_s: int = 60
    host: str = "127.0.0.1"
    revision: int = REVISION
    server: ServerHello | None = None

    def connect(self) -> "ClickHouseGoNative":
        self._sock = socket.create_connection((self.host, self.port), timeout=300)
        self._reader = _SocketReader(self._sock)
        try:
            return self._handshake()
        except BaseException:  # the driver closes a connection whose handshake failed
            self._sock.close()
            raise

    def _handshake(self) -> "ClickHouseGoNative":
        self._sock.sendall(
            bytes([CLIENT_HELLO])
            + _str(CLIENT_NAME)
            + _uvarint(2)
            + _uvarint(47)
            + _uvarint(REVISION)
            + _str(self.database)
            + _str(self.username)
            + _str(self.password)
        )
        packet = self._reader.take(1)[0]
        if packet == SERVER_EXCEPTION:
            raise self._exception()
        if packet != SERVER_HELLO:
            raise DriverError(f"[handshake] unexpected packet [{packet}] from server")
        r = self._reader
        name, major, minor, revision = r.str(), r.uvarint(), r.uvarint(), r.uvarint()
        tz = ZoneInfo(r.str()) if revision >= 54058 else dt.UTC
        display = r.str() if revision >= 54372 else ""
        patch = r.uvarint() if revision >= 54401 else revision
        self.server = ServerHello(name, (major, minor, patch), revision, tz, display)
        if revision < 54032:
            raise DriverError("unsupported server revision")
        self.revision = min(self.revision, revision)
        if self.revision >= 54458:  # sendAddendum: the quota key
            self._sock.sendall(_str(""))
        return self

    def close(self) -> None:
        self._sock.close()

    def _exception(self) -> ServerError:
        r = self._reader
        code = struct.unpack("<i", r.take(4))[0]
        name, message, _stack, nested = r.str(), r.str(), r.str(), r.boolean()
        if nested:
            self._exception()
        return ServerError(code, name, message.removeprefix(name + ":").strip())

    def ping(self) -> None:
        self._sock.sendall(bytes([CLIENT_PING]))
        while True:
            packet = self._reader.take(1)[0]
            if packet == SERVER_PONG:
                return
            if packet == SERVER_EXCEPTION:
                raise self._exception()
            if packet == SERVER_PROGRESS:
                self._progress()
                continue
            raise DriverError(f"[ping] unexpected packet [{packet}] from server")

    def _client_info(self) -> bytes:
        out = bytes([1]) + _str(self.username) + _str("") + _str(f"127.0.0.1:{self._sock.getsockname()[1]}")
        out += struct.pack("<q", 0) + bytes([1])  # initial_query_start_time, interface TCP
        out += _str("grafana") + _str("localhost") + _str(CLIENT_NAME) + _uvarint(2) + _uvarint(47) + _uvarint(REVISION)
        out += _str("")  # quota key
        out += _uvarint(0)  # distributed depth
        out += _uvarint(0)  # version patch
        out += bytes([0])  # no OpenTelemetry span
        out += _uvarint(0) * 3  # parallel replicas
        return out

    def send_query(
        self,
        sql: str,
        settings: dict[str, str] | None = None,
        parameters: dict[str, str] | None = None,
        query_id: str = "",
    ) -> None:
        all_settings = {**self.settings, "max_execution_time": str(self.query_timeout_s + 5), **(settings or {})}
        out = bytes([CLIENT_QUERY]) + _str(query_id) + self._client_info()
        for key, value in all_settings.items():
            out += _str(key) + _uvarint(0) + _str(value)
        out += _str("") + _str("")  # end of settings, interserver secret
        out += bytes([2, 1 if self.compression else 0]) + _str(sql)
        for key, value in (parameters or {}).items():  # a custom setting; encodeFieldDump quotes a string
            out += _str(key) + _uvarint(2) + _str("'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'")
        out += _str("")
        block = bytes([1, 0, 2]) + struct.pack("<i", -1) + bytes([0]) + _uvarint(0) + _uvarint(0)  # an empty block
        out += (
            bytes([CLIENT_DATA]) + _str("") + (compress_frame(block, self.compression) if self.compression else block)
        )
        self._sock.sendall(out)

    def cancel(self) -> None:
        self._sock.sendall(bytes([CLIENT_CANCEL]))

    def _progress(self) -> tuple:
        r = self._reader
        values = [r.uvarint(), r.uvarint(), r.uvarint()]
        if self.revision >= 54420:
            values += [r.uvarint(), r.uvarint()]
        if self.revision >= 54460:
            values.append(r.uvarint())
        return tuple(values)

    def _block(self) -> Result:
        self._reader.str()  # the block's (table) name
        self._reader.compressed = bool(self.compression)
        try:
            return decode_block(self._reader, self.revision, self.server.timezone if self.server else dt.UTC)
        finally:
            if self.compression:
                self._reader.end_compressed()

    def receive(self) -> Answer:
        """The packets up to end of stream, as process() handles them; an exception packet is raised."""
        answer = Answer(Result([], [], []))
        while True:
            packet = self._reader.take(1)[0]
            answer.packets.append(packet)
            if packet == SERVER_END_OF_STREAM:
                return answer
            if packet in (SERVER_DATA, SERVER_TOTALS, SERVER_EXTREMES):
                block = self._block()
                if packet == SERVER_DATA:
                    if not answer.result.columns:
                        answer.result.columns, answer.result.types = block.columns, block.types
                    answer.result.rows.extend(block.rows)
                    answer.blocks += bool(block.rows)
                else:
                    (answer.totals if packet == SERVER_TOTALS else answer.extremes).extend(block.rows)
            elif packet == SERVER_EXCEPTION:
                raise self._exception()
            elif packet == SERVER_PROFILE_INFO:
                r = self._reader
                answer.profile_info = (r.uvarint(), r.uvarint(), r.uvarint(), r.boolean(), r.uvarint(), r.boolean())
            elif packet == SERVER_PROGRESS:
                answer.progress.append(self._progress())
            else:
                raise DriverError(f"[process] unexpected packet [{packet}] from server")

    def run(self, sql: str, settings: dict[str, str] | None = None, parameters: dict[str, str] | None = None) -> Answer:
        self.send_query(sql, settings, parameters)
        return self.receive()

    def query(
        self, sql: str, settings: dict[str, str] | None = None, parameters: dict[str, str] | None = None
    ) -> Result:
        """The rows, as the HTTP twin (tests/support/clickhouse_go.py) gives them."""
        return self.run(sql, settings, parameters).result


def open_grafana_native(port: int, password: str = "", **kwargs) -> ClickHouseGoNative:
    """What the plugin's Connect does over native: dial (the hellos), then ping."""
    connection = ClickHouseGoNative(port, password, **kwargs).connect()
    connection.ping()
    return connection
