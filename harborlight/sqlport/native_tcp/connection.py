"""One native TCP connection, as ClickHouse's TCPHandler serves it: the hellos (the revision both sides use
is the lower of the two), the caller authenticated by the hello's password as the HTTP interface takes it
(an API token; any user name), then queries one at a time. A query's statement runs through the same
ClickHouseInterface as the HTTP port's (its guard, tenancy, limits and readonly), on the SQL threads; while
it runs, the connection answers a Cancel (the engine's KILL QUERY, then end of stream) and sends progress
every `interactive_delay`; a client that goes away has its statement stopped. Then the answer's blocks go out
at the client's revision, compressed as it asked, then profile info, progress and end of stream; a refusal
is an exception packet with ClickHouse's code."""

import asyncio
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable

from harborlight.sqlport.clickhouse_errors import CODES, NAMES, Refused
from harborlight.sqlport.clickhouse_http import SERVER_NAME, Answer, Caller, ClickHouseInterface
from harborlight.sqlport.clickhouse_native import UnsupportedType
from harborlight.sqlport.native_tcp import packets
from harborlight.sqlport.native_tcp import protocol as p
from harborlight.sqlport.native_tcp.blocks import Framing
from harborlight.sqlport.native_tcp.compression import METHODS, read_frame
from harborlight.sqlport.native_tcp.wire import BytesReader, ProtocolError, Reader
from harborlight.sqlport.sql_session import EngineError
from harborlight.sqlport.sql_threads import run_statement

log = logging.getLogger(__name__)

UNEXPECTED_PACKET_FROM_CLIENT, UNKNOWN_PACKET_FROM_CLIENT = 102, 101
DEFAULT_INTERACTIVE_DELAY_US = 100_000  # ClickHouse's interactive_delay: how often progress is sent
MIN_REVISION = p.CLIENT_INFO
# waits until what was acknowledged before a statement (its text, its parameters' values) is stored, and resolved
# when it reads derived rows
ReadGate = Callable[[str, Iterable[str]], Awaitable[object]]


class Closed(Exception):
    """The connection is over (the client left, or the stream broke)."""


def _display(code: int, message: str) -> str:
    """The exception's display text, as ClickHouse sends it: "DB::Exception: message (NAME)"."""
    if message.startswith("Code: "):  # the engine's "Code: N. DB::Exception: ..."
        return message.split(". ", 1)[1] if ". " in message else message
    name = NAMES.get(code, "")
    return f"DB::Exception: {message}" + (f". ({name})" if name else "")


def _version(text: str) -> tuple[int, int, int]:
    parts = [int(x) if x.isdigit() else 0 for x in text.split(".")[:3]]
    return (parts + [0, 0, 0])[0], (parts + [0, 0, 0])[1], (parts + [0, 0, 0])[2]


class NativeConnection:
    def __init__(
        self,
        interface: ClickHouseInterface,
        stream: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        hello_timeout: float,
        idle_timeout: float,
        before_read: ReadGate | None = None,
    ) -> None:
        self._interface = interface
        self._reader = Reader(stream)
        self._writer = writer
        self._hello_timeout = hello_timeout
        self._idle_timeout = idle_timeout
        self._before_read = before_read
        self._pending: asyncio.Task[int] | None = None  # the read of the next packet's type
        self._caller: Caller | None = None
        self._revision = 0
        self._database = "default"
        self._client_method = p.METHOD_LZ4  # the method of the client's last compressed frame

    async def serve(self) -> None:
        try:
            if await asyncio.wait_for(self._handshake(), self._hello_timeout):
                while await self._next():
                    pass
        except (Closed, asyncio.IncompleteReadError, ConnectionError, TimeoutError):
            pass
        except ProtocolError as exc:
            await self._send(
                packets.exception(
                    UNEXPECTED_PACKET_FROM_CLIENT,
                    "DB::Exception",
                    f"DB::Exception: {exc}. (UNEXPECTED_PACKET_FROM_CLIENT)",
                )
            )
        except Exception:  # a fault of ours: said in the log, the connection closed
            log.exception("the native TCP connection failed")
        finally:
            if self._pending is not None:
                self._pending.cancel()
            self._writer.close()

    async def _send(self, data: bytes) -> None:
        self._writer.write(data)
        await self._writer.drain()

    async def _refuse(self, code: int, message: str) -> None:
        await self._send(packets.exception(code, "DB::Exception", _display(code, message)))

    async def _handshake(self) -> bool:
        if await self._reader.varint() != p.CLIENT_HELLO:
            await self._refuse(UNEXPECTED_PACKET_FROM_CLIENT, "Unexpected packet from client (expected Hello)")
            return False
        hello = await packets.read_hello(self._reader)
        if hello.revision < MIN_REVISION:
            await self._refuse(
                CODES["NOT_IMPLEMENTED"],
                f"harborlight speaks the native protocol from revision "
                f"{MIN_REVISION}; the client's is {hello.revision}",
            )
            return False
        self._caller = self._interface.authenticate({}, {"password": hello.password})
        if self._caller is None:
            await self._refuse(
                CODES["AUTHENTICATION_FAILED"],
                f"{hello.user or 'default'}: Authentication failed: "
                "password is incorrect, or there is no user with such name (send an API token as "
                "the password)",
            )
            return False
        self._revision = min(hello.revision, p.SERVER_REVISION)
        self._database = hello.database or "default"
        engine = await asyncio.to_thread(self._interface.engine)
        await self._send(
            packets.server_hello("ClickHouse", _version(engine.version), self._revision, engine.timezone, SERVER_NAME)
        )
        if self._revision >= p.ADDENDUM:
            await packets.read_addendum(self._reader, self._revision)
        return True

    def _read_packet_type(self) -> asyncio.Task[int]:
        if self._pending is None:
            self._pending = asyncio.ensure_future(self._reader.varint())
        return self._pending

    async def _packet_type(self, timeout: float | None) -> int:
        task = self._read_packet_type()
        done, _ = await asyncio.wait({task}, timeout=timeout)
        if not done:
            raise Closed("idle")
        self._pending = None
        return task.result()

    async def _next(self) -> bool:
        """Serves the client's next packet; False once the connection is to close."""
        packet = await self._packet_type(self._idle_timeout)
        if packet == p.CLIENT_PING:
            await self._send(packets.pong())
        elif packet == p.CLIENT_QUERY:
            return await self._query()
        elif packet == p.CLIENT_DATA:  # a stray (empty) block, as after a refused query: nothing to do
            await self._read_block()
        elif packet == p.CLIENT_CANCEL:  # a query that has ended already
            pass
        else:
            await self._refuse(UNKNOWN_PACKET_FROM_CLIENT, f"Unknown packet {packet} from client")
            return False
        return True

    async def _read_block(self, compressed: bool = False) -> None:
        """A client's data packet after its type: its table name, then a block, which must have no rows (the
        end of the external tables; harborlight takes none)."""
        if self._revision >= p.TEMPORARY_TABLES:
            await self._reader.string()
        if compressed:
            data, self._client_method = await read_frame(self._reader)
            block = BytesReader(data)
            if self._revision >= p.BLOCK_INFO:
                while (field_number := block.varint()) != 0:
                    block.take({1: 1, 2: 4}.get(field_number, 0) or self._unknown_field(field_number))
            columns, rows = block.varint(), block.varint()
        else:
            if self._revision >= p.BLOCK_INFO:
                while (field_number := await self._reader.varint()) != 0:
                    await self._reader.exactly({1: 1, 2: 4}.get(field_number, 0) or self._unknown_field(field_number))
            columns, rows = await self._reader.varint(), await self._reader.varint()
        if columns or rows:
            raise ProtocolError("external tables are not supported: send no data with a query")

    @staticmethod
    def _unknown_field(number: int) -> int:
        raise ProtocolError(f"unknown block info field {number}")

    async def _query(self) -> bool:
        query = await packets.read_query(self._reader, self._revision)
        if await self._packet_type(self._idle_timeout) != p.CLIENT_DATA:
            raise ProtocolError("a query is followed by its data")
        await self._read_block(query.compression)
        if query.stage != p.STAGE_COMPLETE:
            await self._refuse(
                CODES["NOT_IMPLEMENTED"], f"harborlight answers complete queries only, not stage {query.stage}"
            )
            return True
        if self._before_read is not None:
            await self._before_read(query.text, query.parameters.values())
        params = {
            **query.settings,
            "database": self._database,
            "query_id": query.query_id,
            **{f"param_{name}": value for name, value in query.parameters.items()},
        }
        run_id = uuid.uuid4().hex
        started = time.monotonic()
        statement = asyncio.ensure_future(
            run_statement(self._interface.answer, self._caller, params, query.text, self._revision, run_id, True)
        )
        delay = _interactive_delay(query.settings)
        cancelled = await self._wait(statement, run_id, delay, started)
        try:
            answer = await statement
        except (Refused, EngineError) as exc:
            if not cancelled:
                await self._refuse(exc.code, str(exc))
            else:
                await self._send(packets.end_of_stream())
            return True
        if cancelled:
            await self._send(packets.end_of_stream())
            return True
        await self._answer(query, answer, started)
        return True

    async def _wait(self, statement: asyncio.Future, run_id: str, delay: float, started: float) -> bool:
        """Waits for the statement, sending progress meanwhile; True when the client cancelled it."""
        while not statement.done():
            incoming = self._read_packet_type()
            done, _ = await asyncio.wait({statement, incoming}, timeout=delay, return_when=asyncio.FIRST_COMPLETED)
            if incoming in done:
                self._pending = None
                try:
                    packet = incoming.result()
                except (asyncio.IncompleteReadError, ConnectionError):  # the client has gone: stop its statement
                    await self._stop(statement, run_id)
                    raise Closed("gone") from None
                if packet != p.CLIENT_CANCEL:
                    await self._stop(statement, run_id)
                    raise ProtocolError(f"packet {packet} while a query runs")
                await self._stop(statement, run_id)
                return True
            if not done:
                await self._send(packets.progress(self._revision, 0, 0, 0, int((time.monotonic() - started) * 1e9)))
        return False

    async def _stop(self, statement: asyncio.Future, run_id: str) -> None:
        """Cancels the statement and waits for it to end; the engine's KILL QUERY is asked again while it runs
        (a statement that had not started when first asked is killed once it has)."""
        while not statement.done():
            await asyncio.to_thread(self._interface.cancel, run_id)
            await asyncio.wait({statement}, timeout=1)

    def _framing(self, query: packets.Query) -> Framing:
        if not query.compression:
            return Framing(self._revision, None)
        named = query.settings.get("network_compression_method", "").lower()
        method = METHODS.get(named, self._client_method)
        level = query.settings.get("network_zstd_compression_level", "1")
        return Framing(self._revision, method, int(level) if level.lstrip("-").isdigit() else 1)

    async def _answer(self, query: packets.Query, answer: Answer, started: float) -> None:
        if not answer.ran:  # SET and USE: nothing carries over to a next statement
            await self._send(packets.end_of_stream())
            return
        framing = self._framing(query)
        rows = blocks = 0
        try:
            for data, block_rows in framing.packets(answer.body, answer.names_and_types):
                await self._send(data)
                if self._pending is not None and self._pending.done():  # a Cancel arrived while blocks went out
                    break
                rows, blocks = rows + block_rows, blocks + (block_rows > 0)
        except UnsupportedType as exc:
            await self._refuse(
                CODES["NOT_IMPLEMENTED"],
                f"harborlight cannot send a {exc} column over the native protocol; cast it (for example toString(...))",
            )
            return
        if self._pending is not None and self._pending.done():
            packet = self._pending.result()
            self._pending = None
            if packet != p.CLIENT_CANCEL:
                raise ProtocolError(f"packet {packet} while a query's answer is sent")
        else:
            await self._send(
                framing.extra(answer.totals, p.SERVER_TOTALS) + framing.extra(answer.extremes, p.SERVER_EXTREMES)
            )
            await self._send(packets.profile_info(rows, blocks, len(answer.body)))
            await self._send(
                packets.progress(
                    self._revision,
                    answer.read_rows,
                    answer.read_bytes,
                    answer.read_rows,
                    answer.elapsed_ns or int((time.monotonic() - started) * 1e9),
                )
            )
        await self._send(packets.end_of_stream())


def _interactive_delay(settings: dict[str, str]) -> float:
    value = settings.get("interactive_delay", "")
    microseconds = int(value) if value.isdigit() and int(value) > 0 else DEFAULT_INTERACTIVE_DELAY_US
    return max(microseconds / 1e6, 0.01)
