"""One SQL session over the store for pass-through clients: a statement in, the engine's own output bytes out.

The ClickHouse-compatible HTTP interface (harborlight/sqlport/clickhouse_http.py) needs what clickhouse-connect's
typed API hides: the output in any format the engine writes (Native, JSON, RowBinaryWithNamesAndTypes, ...), settings
that stay applied for the statements that follow (`readonly`, `additional_table_filters`), and ClickHouse's
own error code. Embedded, a session is its own chDB connection to the engine the store already runs (chDB
allows many connections to one engine in a process; each keeps its own SET state). On a server, a session
sends every statement through the store's HTTP client with the session's settings attached.
"""

import base64
import re
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

from harborlight.sql_text import literal
from harborlight.store.client import Store

_CODE = re.compile(r"Code:\s*(\d+)")
_TRAILING_FORMAT = re.compile(r"\bFORMAT\s+\w+\s*;?\s*$", re.I)
_WRAPPER_SCOPE = re.compile(r":? In scope SELECT formatQuerySingleLine\(base64Decode\([^)]*\)\)\.?")


class EngineError(Exception):
    """The engine refused a statement; `code` is ClickHouse's error code."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Output:
    body: bytes
    read_rows: int = 0
    read_bytes: int = 0
    elapsed_ns: int = 0


class SqlSession(Protocol):
    def apply(self, settings: Mapping[str, str]) -> None:
        """Settings for every later statement run through this SqlSession, applied in order."""

    def run(self, sql: str, fmt: str, params: Mapping[str, str] | None = None) -> Output:
        """Runs one statement; a FORMAT clause in it wins over `fmt`. Raises EngineError."""


def engine_error(exc: Exception) -> EngineError:
    """ClickHouse's code and message out of a chDB or clickhouse-connect exception."""
    message = str(exc)
    message = message[message.find("Code: ") :] if "Code: " in message else message
    message = message.strip().split("\n\n")[0]
    code = _CODE.search(message)
    return EngineError(int(code.group(1)) if code else 1001, message)


class _EmbeddedSession:
    def __init__(self, connection) -> None:
        self._conn = connection

    def apply(self, settings: Mapping[str, str]) -> None:
        for name, value in settings.items():
            self.run(f"SET {name} = {literal(value)}", "TabSeparated")

    def run(self, sql: str, fmt: str, params: Mapping[str, str] | None = None) -> Output:
        started = time.monotonic()
        try:
            result = self._conn.query(sql, fmt, params=dict(params) if params else None)
        except Exception as exc:  # chDB raises RuntimeError / ChdbError carrying ClickHouse's message
            raise engine_error(exc) from None
        if result is None:
            return Output(b"", elapsed_ns=int((time.monotonic() - started) * 1e9))
        return Output(
            result.bytes() or b"", result.rows_read(), result.bytes_read(), int((time.monotonic() - started) * 1e9)
        )


class _ServerSession:
    def __init__(self, client) -> None:
        self._client = client
        self._settings: dict[str, str] = {}

    def apply(self, settings: Mapping[str, str]) -> None:
        self._settings.update(settings)

    def run(self, sql: str, fmt: str | None, params: Mapping[str, str] | None = None) -> Output:
        started = time.monotonic()
        # clickhouse-connect appends "FORMAT fmt": not after a FORMAT clause, nor after an EXPLAIN AST of an
        # INSERT ... VALUES (where it would read as data); those get the statement's own or the default format.
        if _TRAILING_FORMAT.search(sql) or sql.startswith("EXPLAIN AST"):
            fmt = None
        try:
            body = self._client.raw_query(
                sql, parameters=dict(params) if params else None, settings=dict(self._settings), fmt=fmt
            )
        except Exception as exc:  # clickhouse-connect's DatabaseError quotes the server's message
            raise engine_error(exc) from None
        return Output(body, elapsed_ns=int((time.monotonic() - started) * 1e9))


@contextmanager
def sql_session(store: Store) -> Iterator[SqlSession]:
    if not store.embedded:
        yield _ServerSession(store.client)
        return
    import chdb

    connection = chdb.connect(store.client.path)  # a new handle on the engine the store holds open
    try:
        yield _EmbeddedSession(connection)
    finally:
        connection.close()


def format_single_statement(session: SqlSession, sql: str) -> str:
    """The statement as ClickHouse's own parser reads it, on one line; refuses more than one statement
    (chDB would run every statement of a multi-statement text)."""
    encoded = base64.b64encode(sql.encode()).decode()
    try:
        out = session.run("SELECT formatQuerySingleLine(base64Decode({q:String}))", "TabSeparatedRaw", {"q": encoded})
    except EngineError as exc:  # the error is the statement's, not the wrapper's: drop the wrapper's scope
        raise EngineError(exc.code, _WRAPPER_SCOPE.sub("", str(exc))) from None
    return out.body.decode().rstrip("\n")
