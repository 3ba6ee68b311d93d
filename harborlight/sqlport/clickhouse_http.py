"""A read-only, ClickHouse-compatible HTTP interface over the store, for Grafana and other ClickHouse clients.

`harborlight serve --clickhouse-http-port 8123` serves it beside the API. It speaks what ClickHouse's HTTP
interface speaks to clients: the statement in `?query=`, in the body, or both; `default_format`, `database`,
`query_id`, `param_*` bound values and other URL parameters as settings; `/ping` and `/` answering "Ok.";
Native at the revision a client names in `client_protocol_version` (harborlight/sqlport/clickhouse_native.py; passed
through to a ClickHouse server); compressed answers and request bodies as ClickHouse codes them
(harborlight/sqlport/clickhouse_compression.py); the X-ClickHouse-* response headers; errors as ClickHouse writes them
(harborlight/sqlport/clickhouse_errors.py).

Every statement goes through ClickHouse's own parser first (harborlight/sqlport/clickhouse_guard.py decides on its AST),
every setting of the URL and of the statement's SETTINGS clauses is checked (harborlight/sqlport/clickhouse_settings.py
reads them), then the statement runs with `readonly = 2`, the interface's limits (`max_execution_time`,
`max_memory_usage`, `max_threads`: a caller may lower them, not lift them), below the writer's commits (the
engine's `priority`, and the threads' nice where it can be set back) and, with tenants on, `additional_table_filters`
on exactly the expression each table's partition key is led by (each tenant's rows are in parts of their own), so
every other tenant's parts are pruned before a row is read, however the statement reaches the table (subquery,
JOIN, alias, CTE, view()), combined with (never replaced by) the caller's own; a table whose parts may hold several
tenants' rows is refused to a tenant. The caller authenticates with an API token
before any body is read: Bearer, HTTP basic auth (any user, the token as password, as Grafana sends it), or
the X-ClickHouse-Key header.
"""

import asyncio
import base64
import json
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Protocol

import uvicorn
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route

from harborlight.read.fresh_reads import HEADER as UNSTORED_HEADER
from harborlight.sql_text import literal
from harborlight.sqlport.clickhouse_compression import BadBody, BodyTooLarge, UnknownCoding, answer_coding, decoded_body
from harborlight.sqlport.clickhouse_errors import CODES, Refused, Reply, error_reply
from harborlight.sqlport.clickhouse_guard import (
    TABLE_FILTERS,
    TENANT_PINS,
    Bound,
    check,
    check_setting,
    check_tenant_tables,
    is_denied_setting,
    url_settings,
)
from harborlight.sqlport.clickhouse_native import UnsupportedType, reframe, settings_for
from harborlight.sqlport.clickhouse_statement import (
    check_tenant_reads,
    checked_clauses,
    combined,
    set_names,
    tenant_filters_of,
    url_filter_entries,
)
from harborlight.sqlport.clickhouse_totals import asks_totals, run_with_totals
from harborlight.sqlport.sql_session import EngineError, SqlSession, format_single_statement, sql_session
from harborlight.sqlport.sql_threads import run_statement
from harborlight.store.client import READ_PRIORITY, Store

log = logging.getLogger(__name__)

SERVER_NAME = "harborlight"
_ENGINE = """
SELECT version(), timezone(), getSetting('enable_http_compression'), getSetting('http_zlib_compression_level'),
       (SELECT groupArray(name) FROM system.table_functions)"""


class Caller(Protocol):
    tenant: str | None  # None when tenants are off


class Authenticator(Protocol):
    """harborlight.ingest.auth.Authenticator, as the composition root passes it: raises for a missing or unknown
    token."""

    def authenticate(self, authorization: str | None) -> Caller: ...


@dataclass(frozen=True)
class QueryLimits:
    """What one statement may take; a caller may ask for less (ClickHouse settings constraints, min 1)."""

    max_execution_time: int = 300  # seconds
    max_memory_usage: int | None = None  # bytes; None: the engine's own limit only
    max_threads: int | None = None  # threads one statement's pipeline runs on; None: the engine's own (its cores)
    max_request_bytes: int = 16 * 1024 * 1024  # a request body, before and after decompression
    # what one statement may write to the store's disk when it spills (an external GROUP BY, sort or join); at most
    # SQL_THREADS statements run at once, so the port's spill is bounded too (one tenant's GROUP BY had filled 232
    # of the store disk's 320 MiB)
    max_temporary_bytes: int = 64 * 1024 * 1024

    def bounds(self, tenant: bool = False) -> dict[str, Bound]:
        """The bounds of a statement; a tenant's also pins the settings its isolation rests on (TENANT_PINS)."""
        bounds = {
            "max_execution_time": Bound.cap(self.max_execution_time),
            "max_temporary_data_on_disk_size_for_query": Bound.cap(self.max_temporary_bytes),
            # below the writer's commits: a statement pauses while a commit runs, so it never takes their CPU
            "priority": Bound(READ_PRIORITY, low=READ_PRIORITY),
            # the OS's share of the cores, as every other process has: a niced statement waited for every
            # busy process on the machine (70x its time beside two busy loops at nice 19, 1.4x at 0)
            "os_thread_priority": Bound(0, 0, 0),
        }
        if self.max_memory_usage:
            bounds["max_memory_usage"] = Bound.cap(self.max_memory_usage)
        if self.max_threads:
            bounds["max_threads"] = Bound.cap(self.max_threads)
        if tenant:
            bounds |= {name: Bound(value, value, value) for name, value in TENANT_PINS.items()}
        return bounds


@dataclass(frozen=True)
class _Engine:
    version: str
    timezone: str
    http_compression: bool  # the engine's default of enable_http_compression
    compression_level: int
    table_functions: list[str]


@dataclass(frozen=True)
class Answer:
    """A statement's answer in `output_format`; `ran` is False for SET and USE (answered without running)."""

    body: bytes
    output_format: str
    read_rows: int = 0
    read_bytes: int = 0
    elapsed_ns: int = 0
    ran: bool = True
    names_and_types: bytes = b""  # with native_blocks and no rows: the columns, as JSONCompactEachRowWithNamesAndTypes
    totals: bytes = b""  # with native_blocks: the totals row and the extremes rows, revision-0 Native, if asked
    extremes: bytes = b""


def _content_type(fmt: str) -> str:
    if fmt.startswith("JSON"):
        return "application/json; charset=UTF-8"
    if fmt.startswith(("TabSeparated", "TSV")):
        return "text/tab-separated-values; charset=UTF-8"
    if fmt.startswith("CSV"):
        return "text/csv; charset=UTF-8; header=absent"
    if fmt.startswith(("Native", "RowBinary", "Arrow", "Parquet", "ORC", "Avro")):
        return "application/octet-stream"
    return "text/plain; charset=UTF-8"


def token_of(headers: Mapping[str, str], params: Mapping[str, str]) -> str | None:
    """The caller's API token as an Authorization header value, from any of the ways ClickHouse clients send it."""
    authorization = headers.get("authorization", "")
    scheme, _, value = authorization.partition(" ")
    if scheme.lower() == "basic":
        try:
            password = base64.b64decode(value.strip()).decode().partition(":")[2]
        except (ValueError, UnicodeDecodeError):
            password = ""
        return f"Bearer {password}" if password else None
    if authorization:
        return authorization
    key = headers.get("x-clickhouse-key") or params.get("password")
    return f"Bearer {key}" if key else None


def protocol_revision(params: Mapping[str, str]) -> int:
    """The client's `client_protocol_version` (0 without it), parsed as ClickHouse's HTTPHandler does."""
    text = params.get("client_protocol_version")
    if text is None:
        return 0
    if not text.isdigit():
        raise Refused(
            CODES["CANNOT_PARSE_INPUT_ASSERTION_FAILED"],
            f"Cannot parse input: expected an unsigned integer for client_protocol_version, got {text!r}",
        )
    return int(text)


class ClickHouseInterface:
    """Runs one request's statement against the store under the guard; blocking (called in a worker thread)."""

    def __init__(self, store: Store, authenticator: Authenticator, limits: QueryLimits = QueryLimits()) -> None:
        self._store = store
        self._authenticator = authenticator
        self.limits = limits
        self._engine: _Engine | None = None
        self._cancelled: set[str] = set()  # run ids cancelled before their statement started

    def authenticate(self, headers: Mapping[str, str], params: Mapping[str, str]) -> Caller | None:
        """The caller, from the request's headers and URL alone; None for a missing or unknown token."""
        try:
            return self._authenticator.authenticate(token_of(headers, params))
        except Exception:  # harborlight.ingest.auth.Unauthorized: no token, or not one this server knows
            return None

    def engine(self) -> _Engine:
        """The engine's version, time zone and table functions (asked once)."""
        if self._engine is None:
            with sql_session(self._store) as session:
                return self._describe_engine(session)
        return self._engine

    def _describe_engine(self, session: SqlSession) -> _Engine:
        if self._engine is None:
            row = json.loads(session.run(_ENGINE, "JSONCompactEachRow").body)
            self._engine = _Engine(row[0], row[1], str(row[2]).lower() in ("1", "true"), int(row[3]), row[4])
        return self._engine

    def handle(
        self, caller: Caller, headers: Mapping[str, str], params: Mapping[str, str], body: bytes, run_id: str = ""
    ) -> Reply:
        """The reply to one request; its statement runs tagged `run_id`, for cancel()."""
        query_id = params.get("query_id") or str(uuid.uuid4())
        reply = self._execute(caller, headers, params, body, run_id)
        engine = self._engine
        reply.headers.update(
            {
                "X-ClickHouse-Query-Id": query_id,
                "X-ClickHouse-Server-Display-Name": SERVER_NAME,
                "X-ClickHouse-Timezone": engine.timezone if engine else "UTC",
            }
        )
        return compressed(reply, headers, params, engine)

    def cancel(self, run_id: str) -> None:
        """Stops the statement tagged `run_id` (its client has gone), as ClickHouse does for a read-only HTTP
        query with cancel_http_readonly_queries_on_client_close: the engine's own KILL QUERY."""
        self._cancelled.add(run_id)  # a statement still being checked does not start
        with sql_session(self._store) as session:
            session.run(f"KILL QUERY WHERE startsWith(query, {literal(_run_tag(run_id))}) ASYNC", "TabSeparated")

    def _execute(
        self, caller: Caller, headers: Mapping[str, str], params: Mapping[str, str], body: bytes, run_id: str
    ) -> Reply:
        version = self._engine.version if self._engine else ""
        try:
            revision = protocol_revision(params)
            sql = _statement_text(
                params.get("query", ""),
                decoded_body(body, headers.get("content-encoding", ""), self.limits.max_request_bytes),
            )
            answer = self.answer(caller, params, sql, revision, run_id)
        except Refused as exc:
            return error_reply(exc.code, str(exc), self.version)
        except EngineError as exc:
            reply = error_reply(exc.code, str(exc), self.version)
            if " for query parameter '" in str(exc):  # a param_ value not of its type (457, 130, ...): malformed
                reply.status = 400
            return reply
        except BodyTooLarge as exc:
            return error_reply(CODES["QUERY_IS_TOO_LARGE"], str(exc), version)
        except UnknownCoding as exc:  # what ClickHouse's chooseCompressionMethod raises
            return error_reply(CODES["NOT_IMPLEMENTED"], str(exc), version)
        except BadBody as exc:  # ClickHouse's inflating read buffers raise ZLIB_INFLATE_FAILED and the like
            return error_reply(CODES["ZLIB_INFLATE_FAILED"], str(exc), version)
        if not answer.ran:
            return Reply(200, b"", {"X-ClickHouse-Summary": "{}"})
        summary = {
            "read_rows": str(answer.read_rows),
            "read_bytes": str(answer.read_bytes),
            "written_rows": "0",
            "written_bytes": "0",
            "total_rows_to_read": str(answer.read_rows),
            "result_rows": "0",
            "result_bytes": str(len(answer.body)),
            "elapsed_ns": str(answer.elapsed_ns),
        }
        return Reply(
            200,
            answer.body,
            {
                "X-ClickHouse-Format": answer.output_format,
                "X-ClickHouse-Summary": json.dumps(summary),
                "Content-Type": _content_type(answer.output_format),
            },
        )

    @property
    def version(self) -> str:
        """The engine's version, once a statement has asked it ("" before)."""
        return self._engine.version if self._engine else ""

    def answer(
        self,
        caller: Caller,
        params: Mapping[str, str],
        sql: str,
        revision: int = 0,
        run_id: str = "",
        native_blocks: bool = False,
    ) -> Answer:
        """One statement's answer under the guard, for any wire: `params` as ClickHouse's HTTP interface names
        them (database, default_format, param_*, settings). `native_blocks`: the answer is revision-0 Native
        whatever the statement's FORMAT clause says, for a wire that frames each block itself for `revision`
        (the native TCP protocol); else Native is written for `revision` here. Raises Refused and EngineError."""
        if not sql.strip():
            raise Refused(CODES["SYNTAX_ERROR"], "Empty query")
        try:
            with sql_session(self._store) as session:
                engine = self._describe_engine(session)
                return self._run(session, engine, caller, params, sql, revision, run_id, native_blocks)
        finally:
            self._cancelled.discard(run_id)

    def _run(
        self,
        session: SqlSession,
        engine: _Engine,
        caller: Caller,
        params: Mapping[str, str],
        sql: str,
        revision: int,
        run_id: str,
        native_blocks: bool,
    ) -> Answer:
        database = params.get("database") or "default"
        fmt = "Native" if native_blocks else params.get("default_format") or "TabSeparated"
        if self._store.embedded and database != "default":
            session.run(f"USE `{database.replace('`', '``')}`", "TabSeparated")
        bound = {k[6:]: v for k, v in params.items() if k.startswith("param_")}
        canonical = format_single_statement(session, sql)
        ast = session.run(f"EXPLAIN AST {canonical}", "TabSeparatedRaw", bound).body.decode()
        statement = check(ast, engine.table_functions, database, canonical, tenant=caller.tenant is not None)
        if statement.kind in ("Set", "UseQuery"):  # no sessions: nothing carries over to a next request
            for name in set_names(canonical) if statement.kind == "Set" else []:
                if is_denied_setting(name):
                    raise Refused(CODES["READONLY"], f"Cannot modify '{name}' setting in readonly mode")
            return Answer(b"", "", ran=False)
        bounds = self.limits.bounds(tenant=caller.tenant is not None)
        settings = url_settings(params)
        for name, value in settings.items():
            if name != TABLE_FILTERS:
                check_setting(name, value, bounds)
        tenant = tenant_filters_of(session, caller.tenant) if caller.tenant is not None else None
        if tenant is not None:  # before the engine analyses it (analysis runs scalar subqueries)
            check_tenant_tables(statement.tables, tenant)
        canonical = checked_clauses(session, canonical, ast, statement, bounds, tenant, database)
        session.apply({name: str(bound.value) for name, bound in bounds.items()})
        session.apply({k: v for k, v in settings.items() if k != TABLE_FILTERS})
        if self._store.embedded or native_blocks:
            session.apply(settings_for(revision))
        elif revision:  # a ClickHouse server writes that revision's Native itself
            session.apply({"client_protocol_version": str(revision)})
        caller_filters = settings.get(TABLE_FILTERS)
        if tenant is not None:
            entries = url_filter_entries(session, caller_filters) if caller_filters else []
            session.apply({TABLE_FILTERS: combined(session, tenant, entries, database, statement)})
        elif caller_filters is not None:
            session.apply({TABLE_FILTERS: caller_filters})
        session.apply({"readonly": "2"})
        if caller.tenant is not None:
            check_tenant_reads(session, canonical, statement, bound, tenant)
        if native_blocks and statement.output_format:  # the wire's client formats the blocks itself
            canonical = _without_format(canonical, statement.output_format)
        tagged = f"{_run_tag(run_id)} {canonical}" if run_id else canonical
        if run_id in self._cancelled:
            raise Refused(CODES["QUERY_WAS_CANCELLED"], "Query was cancelled")
        if native_blocks and asks_totals(canonical, settings):
            parts = run_with_totals(session, tagged, bound)
            out = parts.output
            return Answer(
                parts.body,
                fmt,
                out.read_rows,
                out.read_bytes,
                out.elapsed_ns,
                names_and_types=parts.names_and_types,
                totals=parts.totals,
                extremes=parts.extremes,
            )
        out = session.run(tagged, fmt, bound)
        output_format = fmt if native_blocks else statement.output_format or fmt
        body = out.body
        header = b""
        if native_blocks and not body:  # the engine writes no block for no rows; a TCP client needs the header
            header = session.run(tagged, "JSONCompactEachRowWithNamesAndTypes", bound).body
        elif not native_blocks and self._store.embedded and revision and output_format.lower() == "native":
            try:
                body = reframe(body, revision)
            except UnsupportedType as exc:
                raise Refused(
                    CODES["NOT_IMPLEMENTED"],
                    f"harborlight cannot write a {exc} column as Native for "
                    f"client revision {revision}; cast it (for example toString(...))",
                ) from None
        return Answer(body, output_format, out.read_rows, out.read_bytes, out.elapsed_ns, names_and_types=header)


def _without_format(canonical: str, output_format: str) -> str:
    """The formatted statement without its FORMAT clause (the formatter writes it last)."""
    suffix = f" FORMAT {output_format}"
    if not canonical.endswith(suffix):
        raise Refused(CODES["SYNTAX_ERROR"], "cannot read the statement's FORMAT clause")
    return canonical[: -len(suffix)]


def _run_tag(run_id: str) -> str:
    """The comment a statement's text starts with while it runs, so KILL QUERY can find it."""
    return f"/* harborlight-run {run_id} */"


def _statement_text(query: str, body: bytes) -> str:
    try:
        text = body.decode() if body else ""
    except UnicodeDecodeError as exc:
        raise Refused(CODES["CANNOT_PARSE_INPUT_ASSERTION_FAILED"], f"the statement is not UTF-8: {exc}") from None
    return f"{query}\n{text}" if query and text else query or text


def compressed(reply: Reply, headers: Mapping[str, str], params: Mapping[str, str], engine: _Engine | None) -> Reply:
    """The answer coded as ClickHouse codes it for this request's Accept-Encoding and enable_http_compression."""
    enabled = params.get("enable_http_compression", "1" if engine is None or engine.http_compression else "0")
    coding = answer_coding(headers.get("accept-encoding", ""), enabled.lower() in ("1", "true"))
    if coding is None or not reply.body:
        return reply
    level = params.get("http_zlib_compression_level", "")
    level_value = int(level) if level.lstrip("-").isdigit() else engine.compression_level if engine else 3
    reply.body = coding.compress(reply.body, level_value)
    reply.headers["Content-Encoding"] = coding.name
    return reply


async def _read_body(request: Request, limit: int) -> bytes:
    """The request body, refused once it is known to pass `limit` bytes (before anything is decoded)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge(f"the request body of {declared} bytes is larger than {limit} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge(f"the request body is larger than {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


async def _disconnected(request: Request) -> None:
    """Returns when the client closes its connection (the body is read: the server's next message is that)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


# Waits until what was acknowledged before a statement (its text, its parameters' values) is stored, and resolved
# when it reads derived rows; returns how many acknowledged requests it may not see (the answer then says so).
ReadGate = Callable[[str, Iterable[str]], Awaitable[int]]


def _gate_text(params: Mapping[str, str], body: bytes) -> str:
    try:
        return _statement_text(params.get("query", ""), body)
    except Refused:  # refused when it runs; it reads nothing
        return ""


def clickhouse_app(interface: ClickHouseInterface, before_read: ReadGate | None = None) -> Starlette:
    async def ping(request: Request) -> Response:
        return Response(b"Ok.\n", media_type="text/plain; charset=UTF-8")

    async def query(request: Request) -> Response:
        params = dict(request.query_params)
        headers = {k.lower(): v for k, v in request.headers.items()}
        if request.method == "GET" and "query" not in params:
            return Response(b"Ok.\n", media_type="text/plain; charset=UTF-8")
        caller = interface.authenticate(headers, params)
        if caller is None:  # before any body is read
            reply = error_reply(
                CODES["AUTHENTICATION_FAILED"],
                "default: Authentication failed: password is "
                "incorrect, or there is no user with such name (send an API token as the password)",
            )
            return Response(reply.body, status_code=reply.status, headers=reply.headers)
        try:
            body = await _read_body(request, interface.limits.max_request_bytes)
        except BodyTooLarge as exc:
            reply = error_reply(CODES["QUERY_IS_TOO_LARGE"], str(exc))
            return Response(reply.body, status_code=reply.status, headers=reply.headers)
        except ClientDisconnect:  # gone before its body had arrived (or closed for being too slow): no one to answer
            return Response(status_code=400)
        values = [value for name, value in params.items() if name.startswith("param_")]
        unstored = await before_read(_gate_text(params, body), values) if before_read is not None else 0
        run_id = uuid.uuid4().hex
        statement = asyncio.ensure_future(run_statement(interface.handle, caller, headers, params, body, run_id))
        gone = asyncio.ensure_future(_disconnected(request))
        await asyncio.wait({statement, gone}, return_when=asyncio.FIRST_COMPLETED)
        if not statement.done():  # the client has gone: stop its statement rather than finish it for no one
            await asyncio.to_thread(interface.cancel, run_id)
        gone.cancel()
        reply = await statement
        headers = {**reply.headers, UNSTORED_HEADER.decode(): str(unstored)} if unstored else reply.headers
        return Response(reply.body, status_code=reply.status, headers=headers)

    return Starlette(
        routes=[
            Route("/ping", ping, methods=["GET", "HEAD"]),
            Route("/replicas_status", ping, methods=["GET", "HEAD"]),
            Route("/", query, methods=["GET", "POST"]),
        ]
    )


@asynccontextmanager
async def clickhouse_http_server(
    store: Store,
    authenticator: Authenticator,
    host: str,
    port: int,
    limits: QueryLimits = QueryLimits(),
    before_read: ReadGate | None = None,
    protocol: type[asyncio.Protocol] | str = "auto",
) -> AsyncIterator[int]:
    """Serves the interface on host:port until the block exits; yields the bound port. `before_read`: what a
    statement waits for first, and `protocol` uvicorn's HTTP protocol class (the composition root's: the one that
    times out slow clients and caps connections)."""
    app = clickhouse_app(ClickHouseInterface(store, authenticator, limits), before_read)
    config = uvicorn.Config(
        app, host=host, port=port, log_level="warning", lifespan="off", timeout_graceful_shutdown=5, http=protocol
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
            raise OSError(f"cannot listen for the ClickHouse HTTP interface on {host}:{port}")
        await asyncio.sleep(0.01)
    try:
        yield server.servers[0].sockets[0].getsockname()[1]
    finally:
        server.should_exit = True
        await task


@asynccontextmanager
async def optional_clickhouse_http_server(
    store: Store,
    authenticator: Authenticator,
    host: str,
    port: int | None,
    limits: QueryLimits = QueryLimits(),
    before_read: ReadGate | None = None,
    protocol: type[asyncio.Protocol] | str = "auto",
) -> AsyncIterator[int | None]:
    """The interface when a port is configured (0: any free port), else nothing; yields the bound port or None."""
    if port is None:
        yield None
        return
    async with clickhouse_http_server(store, authenticator, host, port, limits, before_read, protocol) as bound:
        yield bound
