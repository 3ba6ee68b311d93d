"""A read-only, ClickHouse-compatible HTTP interface over the store, for Grafana and other ClickHouse clients.

`harborlight serve --clickhouse-http-port 8123` serves it beside the API. It speaks what ClickHouse's HTTP
interface speaks to clients: the statement in `?query=`, in the body, or both; `default_format`, `database`,
`query_id`, `param_*` bound values and other URL parameters as settings; `/ping` and `/` answering "Ok.";
gzip or deflate responses when asked (`enable_http_compression=1` + Accept-Encoding); the X-ClickHouse-*
response headers; errors as "Code: N. DB::Exception: ..." with X-ClickHouse-Exception-Code.

Every statement goes through ClickHouse's own parser first (query/clickhouse_guard.py decides on its AST), then
runs with `readonly = 1` and, with tenants on, `additional_table_filters` that keep only the caller's rows in
every table, however the statement reaches it (subquery, JOIN, alias, CTE, view). The caller authenticates
with an API token: Bearer, HTTP basic auth (any user, the token as password, as Grafana sends it), or the
X-ClickHouse-Key header.
"""

import asyncio
import base64
import gzip
import json
import logging
import uuid
import zlib
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Protocol

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from query.clickhouse_guard import (
    SYNTAX_ERROR, Refused, check, filters_setting, is_denied_setting, set_statement_names, tenant_filters,
    url_settings,
)
from query.sql_threads import run_statement
from storage.client import Store
from storage.sql_session import EngineError, SqlSession, format_single_statement, sql_session

log = logging.getLogger(__name__)

AUTHENTICATION_FAILED = 516
SERVER_NAME = "harborlight"
_NAMES = {164: "READONLY", 497: "ACCESS_DENIED", 62: "SYNTAX_ERROR", 516: "AUTHENTICATION_FAILED",
          115: "UNKNOWN_SETTING"}
# ClickHouse's own mapping of error codes to HTTP statuses (exceptionCodeToHTTPStatus), for the codes met here.
_STATUS = {194: 401, 516: 403, 192: 403, 193: 403, 164: 403, 497: 403, 62: 400, 36: 400, 27: 400, 6: 400,
           26: 400, 60: 404, 81: 404, 46: 404, 47: 404, 50: 404, 115: 404, 56: 404, 159: 408}
_TABLES = """
SELECT database, table, groupArray(name) FROM system.columns
WHERE database NOT IN ('system', 'information_schema', 'INFORMATION_SCHEMA')
GROUP BY database, table"""


class Caller(Protocol):
    tenant: str | None  # None when tenants are off


class Authenticator(Protocol):
    """collector.auth.Authenticator, as the composition root passes it: raises for a missing or unknown token."""

    def authenticate(self, authorization: str | None) -> Caller: ...


@dataclass
class Reply:
    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)


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


def error_reply(code: int, message: str, version: str = "") -> Reply:
    if not message.startswith("Code: "):
        name = _NAMES.get(code, "")
        message = f"Code: {code}. DB::Exception: {message}. ({name})" + (f" (version {version})" if version else "")
    return Reply(_STATUS.get(code, 500), (message.rstrip("\n") + "\n").encode(),
                 {"X-ClickHouse-Exception-Code": str(code), "Content-Type": "text/plain; charset=UTF-8"})


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


class ClickHouseInterface:
    """Runs one request's statement against the store under the guard; blocking (called in a worker thread)."""

    def __init__(self, store: Store, authenticator: Authenticator) -> None:
        self._store = store
        self._authenticator = authenticator
        self._table_functions: list[str] | None = None
        self._version = ""
        self._timezone = "UTC"

    def _describe_engine(self, session: SqlSession) -> list[str]:
        if self._table_functions is None:
            version_tz = session.run("SELECT version(), timezone()", "TabSeparated").body.decode().split()
            self._version, self._timezone = version_tz[0], version_tz[1]
            names = session.run("SELECT name FROM system.table_functions", "TabSeparated").body.decode().split()
            self._table_functions = names
        return self._table_functions

    def handle(self, headers: Mapping[str, str], params: Mapping[str, str], body: bytes) -> Reply:
        query_id = params.get("query_id") or str(uuid.uuid4())
        reply = self._execute(headers, params, body)
        reply.headers.update({
            "X-ClickHouse-Query-Id": query_id, "X-ClickHouse-Timezone": self._timezone,
            "X-ClickHouse-Server-Display-Name": SERVER_NAME,
        })
        return _compressed(reply, headers, params)

    def _execute(self, headers: Mapping[str, str], params: Mapping[str, str], body: bytes) -> Reply:
        try:
            caller = self._authenticator.authenticate(token_of(headers, params))
        except Exception:  # collector.auth.Unauthorized: no token, or not one this server knows
            return error_reply(AUTHENTICATION_FAILED, "default: Authentication failed: password is incorrect, or "
                               "there is no user with such name (send an API token as the password)")
        try:
            sql = _statement_text(params.get("query", ""), _decoded(body, headers.get("content-encoding", "")))
        except (OSError, zlib.error, UnicodeDecodeError) as exc:
            return error_reply(SYNTAX_ERROR, f"cannot read the request body: {exc}")
        if not sql.strip():
            return error_reply(SYNTAX_ERROR, "Empty query")
        database = params.get("database") or "default"
        fmt = params.get("default_format") or "TabSeparated"
        try:
            with sql_session(self._store) as session:
                table_functions = self._describe_engine(session)
                if self._store.embedded and database != "default":
                    session.run(f"USE `{database.replace('`', '``')}`", "TabSeparated")
                bound = {k[6:]: v for k, v in params.items() if k.startswith("param_")}
                canonical = format_single_statement(session, sql)
                ast = session.run(f"EXPLAIN AST {canonical}", "TabSeparatedRaw", bound).body.decode()
                statement = check(ast, table_functions, database)
                if statement.kind in ("Set", "UseQuery"):  # no sessions: nothing carries over to a next request
                    for name in set_statement_names(canonical) if statement.kind == "Set" else []:
                        if is_denied_setting(name):
                            raise Refused(164, f"Cannot modify '{name}' setting in harborlight's read-only interface")
                    return Reply(200, b"", {"X-ClickHouse-Summary": "{}"})
                session.apply(url_settings(params))
                if caller.tenant is not None:
                    tables = [json.loads(line) for line in session.run(_TABLES, "JSONCompactEachRow").body.splitlines()]
                    session.apply({"additional_table_filters": filters_setting(tenant_filters(tables, caller.tenant))})
                session.apply({"readonly": "1"})
                out = session.run(canonical, fmt, bound)
        except Refused as exc:
            return error_reply(exc.code, str(exc), self._version)
        except EngineError as exc:
            return error_reply(exc.code, str(exc), self._version)
        summary = {"read_rows": str(out.read_rows), "read_bytes": str(out.read_bytes), "written_rows": "0",
                   "written_bytes": "0", "total_rows_to_read": str(out.read_rows), "result_rows": "0",
                   "result_bytes": str(len(out.body)), "elapsed_ns": str(out.elapsed_ns)}
        output_format = statement.output_format or fmt
        return Reply(200, out.body, {
            "X-ClickHouse-Format": output_format, "X-ClickHouse-Summary": json.dumps(summary),
            "Content-Type": _content_type(output_format),
        })


def _statement_text(query: str, body: bytes) -> str:
    text = body.decode() if body else ""
    return f"{query}\n{text}" if query and text else query or text


def _decoded(body: bytes, encoding: str) -> bytes:
    encoding = encoding.lower().strip()
    if encoding == "gzip":
        return gzip.decompress(body)
    if encoding == "deflate":
        return zlib.decompress(body)
    return body


def _compressed(reply: Reply, headers: Mapping[str, str], params: Mapping[str, str]) -> Reply:
    if params.get("enable_http_compression") not in ("1", "true") or not reply.body:
        return reply
    accepted = [e.split(";")[0].strip().lower() for e in headers.get("accept-encoding", "").split(",")]
    if "gzip" in accepted:
        reply.body, reply.headers["Content-Encoding"] = gzip.compress(reply.body, compresslevel=3), "gzip"
    elif "deflate" in accepted:
        reply.body, reply.headers["Content-Encoding"] = zlib.compress(reply.body, 3), "deflate"
    return reply


def clickhouse_app(interface: ClickHouseInterface) -> Starlette:
    async def ping(request: Request) -> Response:
        return Response(b"Ok.\n", media_type="text/plain; charset=UTF-8")

    async def query(request: Request) -> Response:
        params = dict(request.query_params)
        body = await request.body()
        if request.method == "GET" and "query" not in params:
            return Response(b"Ok.\n", media_type="text/plain; charset=UTF-8")
        headers = {k.lower(): v for k, v in request.headers.items()}
        reply = await run_statement(interface.handle, headers, params, body)
        return Response(reply.body, status_code=reply.status, headers=reply.headers)

    return Starlette(routes=[
        Route("/ping", ping, methods=["GET", "HEAD"]),
        Route("/replicas_status", ping, methods=["GET", "HEAD"]),
        Route("/", query, methods=["GET", "POST"]),
    ])


@asynccontextmanager
async def clickhouse_http_server(
    store: Store, authenticator: Authenticator, host: str, port: int
) -> AsyncIterator[int]:
    """Serves the interface on host:port until the block exits; yields the bound port."""
    config = uvicorn.Config(clickhouse_app(ClickHouseInterface(store, authenticator)), host=host, port=port,
                            log_level="warning", lifespan="off", timeout_graceful_shutdown=5)
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
    store: Store, authenticator: Authenticator, host: str, port: int | None
) -> AsyncIterator[int | None]:
    """The interface when a port is configured (0: any free port), else nothing; yields the bound port or None."""
    if port is None:
        yield None
        return
    async with clickhouse_http_server(store, authenticator, host, port) as bound:
        yield bound
