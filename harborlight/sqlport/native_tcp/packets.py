"""The packets of the native protocol, as ClickHouse's TCPHandler reads and writes them at a revision:
the client's hello, query (with its client info, settings and parameters) and data; the server's hello,
data, progress, profile info, exception, pong and end of stream. Reading is async over a Reader; writing
is pure (values in, bytes out)."""

from dataclasses import dataclass, field

from harborlight.sqlport.clickhouse_settings import Unreadable, unquoted
from harborlight.sqlport.native_tcp import protocol as p
from harborlight.sqlport.native_tcp.wire import ProtocolError, Reader, int32, string, uint8, uint64, varint

_LEGACY_STRING_SETTINGS = {  # revisions before 54429 write a setting in its type; these few as strings
    "network_compression_method",
    "load_balancing",
    "totals_mode",
    "distributed_product_mode",
    "count_distinct_implementation",
    "log_queries_cut_to_length",
    "format_csv_delimiter",
    "timezone",
    "session_timezone",
    "log_comment",
}


@dataclass(frozen=True)
class Hello:
    client_name: str
    version: tuple[int, int]
    revision: int
    database: str
    user: str
    password: str


@dataclass
class Query:
    query_id: str
    text: str
    compression: bool
    stage: int
    settings: dict[str, str] = field(default_factory=dict)
    parameters: dict[str, str] = field(default_factory=dict)
    client_name: str = ""


async def read_hello(reader: Reader) -> Hello:
    """The client's hello, after its packet type."""
    name = await reader.string()
    major, minor = await reader.varint(), await reader.varint()
    revision = await reader.varint()
    database, user, password = await reader.string(), await reader.string(), await reader.string()
    return Hello(name, (major, minor), revision, database, user, password)


def server_hello(name: str, version: tuple[int, int, int], revision: int, timezone: str, display_name: str) -> bytes:
    """The server's hello for a client whose agreed revision is `revision` (the server's own is SERVER_REVISION)."""
    out = varint(p.SERVER_HELLO) + string(name) + varint(version[0]) + varint(version[1]) + varint(p.SERVER_REVISION)
    if revision >= p.SERVER_TIMEZONE:
        out += string(timezone)
    if revision >= p.SERVER_DISPLAY_NAME:
        out += string(display_name)
    if revision >= p.VERSION_PATCH:
        out += varint(version[2])
    if revision >= p.PASSWORD_COMPLEXITY_RULES:
        out += varint(0)  # no password rules
    if revision >= p.INTERSERVER_SECRET_V2:
        out += uint64(0)  # the nonce, for servers of a cluster only
    return out


async def read_addendum(reader: Reader, revision: int) -> str:
    """The quota key a client sends after the hellos, from revision 54458."""
    return await reader.string() if revision >= p.ADDENDUM else ""


async def _read_client_info(reader: Reader, revision: int) -> str:
    """ClientInfo::read; only the client's name is kept."""
    client_name = ""
    if await reader.uint8() == p.QUERY_KIND_NONE:
        return client_name
    await reader.string()  # initial user
    await reader.string()  # initial query id
    await reader.string()  # initial address
    if revision >= p.INITIAL_QUERY_START_TIME:
        await reader.int64()
    interface = await reader.uint8()
    if interface != p.INTERFACE_TCP:
        raise ProtocolError(f"client info of interface {interface} on the TCP port")
    await reader.string()  # os user
    await reader.string()  # client host name
    client_name = await reader.string()
    await reader.varint()
    await reader.varint()
    await reader.varint()  # the client's own revision
    if revision >= p.QUOTA_KEY_IN_CLIENT_INFO:
        await reader.string()
    if revision >= p.DISTRIBUTED_DEPTH:
        await reader.varint()
    if revision >= p.VERSION_PATCH:
        await reader.varint()
    if revision >= p.OPENTELEMETRY and await reader.uint8():
        await reader.exactly(16 + 8)  # trace id, span id
        await reader.string()  # trace state
        await reader.uint8()  # trace flags
    if revision >= p.PARALLEL_REPLICAS:
        for _ in range(3):
            await reader.varint()
    return client_name


async def _read_settings(reader: Reader, revision: int, field_dumps: bool) -> dict[str, str]:
    """Settings (or parameters) up to the empty name. From revision 54429 each is a name, flags and a string;
    a custom setting's (and a parameter's) string is a Field dump: a string in single quotes."""
    settings: dict[str, str] = {}
    while name := await reader.string():
        if revision >= p.SETTINGS_AS_STRINGS:
            flags = await reader.varint()
            value = await reader.string()
            if field_dumps or flags & p.SETTING_CUSTOM:
                try:
                    value = unquoted(value)
                except Unreadable:
                    raise ProtocolError(f"cannot read the value of {name}: {value!r}") from None
        elif name in _LEGACY_STRING_SETTINGS:
            value = await reader.string()
        else:
            value = str(await reader.varint())
        settings[name] = value
    return settings


async def read_query(reader: Reader, revision: int) -> Query:
    """A query packet, after its packet type."""
    query_id = await reader.string()
    client_name = await _read_client_info(reader, revision) if revision >= p.CLIENT_INFO else ""
    settings = await _read_settings(reader, revision, False)
    if revision >= p.INTERSERVER_SECRET:
        await reader.string()
    stage, compression = await reader.varint(), await reader.varint()
    text = await reader.string()
    parameters = await _read_settings(reader, revision, True) if revision >= p.PARAMETERS else {}
    return Query(query_id, text, bool(compression), stage, settings, parameters, client_name)


def data_head(revision: int, packet: int = p.SERVER_DATA) -> bytes:
    """A data (or totals, extremes) packet's head: its type and external table name; the block follows,
    compressed or not."""
    return varint(packet) + (string("") if revision >= p.TEMPORARY_TABLES else b"")


def progress(revision: int, rows: int, nbytes: int, total_rows: int, elapsed_ns: int) -> bytes:
    out = varint(p.SERVER_PROGRESS) + varint(rows) + varint(nbytes)
    if revision >= p.TOTAL_ROWS_IN_PROGRESS:
        out += varint(total_rows)
    if revision >= p.TOTAL_BYTES_IN_PROGRESS:
        out += varint(0)
    if revision >= p.CLIENT_WRITE_INFO:
        out += varint(0) + varint(0)
    if revision >= p.SERVER_QUERY_TIME_IN_PROGRESS:
        out += varint(elapsed_ns)
    return out


def profile_info(rows: int, blocks: int, nbytes: int) -> bytes:
    """Rows, blocks and bytes sent, no LIMIT applied, and `calculated_rows_before_limit` true: a server has always
    worked it out by the time it writes it (clickhouse-client 18.16 aborts when told it is not)."""
    return (
        varint(p.SERVER_PROFILE_INFO) + varint(rows) + varint(blocks) + varint(nbytes) + uint8(0) + varint(0) + uint8(1)
    )


def exception(code: int, name: str, message: str) -> bytes:
    """An exception with no nested one; `message` is the display text ("DB::Exception: ...")."""
    return varint(p.SERVER_EXCEPTION) + int32(code) + string(name) + string(message) + string("") + uint8(0)


def pong() -> bytes:
    return varint(p.SERVER_PONG)


def end_of_stream() -> bytes:
    return varint(p.SERVER_END_OF_STREAM)
