"""The native TCP listener: `harborlight serve --clickhouse-tcp-port 9000`. Each connection is served by a
NativeConnection over the same ClickHouseInterface (guard, tenancy, limits) as the HTTP port; past
`max_connections` open ones a new connection is told so (an exception packet) and closed."""

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from harborlight.sqlport.clickhouse_http import Authenticator, ClickHouseInterface, QueryLimits
from harborlight.sqlport.native_tcp import packets
from harborlight.sqlport.native_tcp.connection import NativeConnection, ReadGate
from harborlight.store.client import Store

TOO_MANY_SIMULTANEOUS_QUERIES = 202


@asynccontextmanager
async def clickhouse_tcp_server(
    store: Store,
    authenticator: Authenticator,
    host: str,
    port: int,
    limits: QueryLimits = QueryLimits(),
    before_read: ReadGate | None = None,
    hello_timeout: float = 30,
    idle_timeout: float = 3600,
    max_connections: int = 512,
) -> AsyncIterator[int]:
    """Serves the native protocol on host:port until the block exits; yields the bound port."""
    interface = ClickHouseInterface(store, authenticator, limits)
    open_connections: set[asyncio.Task] = set()

    async def connected(stream: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if len(open_connections) >= max_connections:
            writer.write(
                packets.exception(
                    TOO_MANY_SIMULTANEOUS_QUERIES,
                    "DB::Exception",
                    f"DB::Exception: more than {max_connections} open connections",
                )
            )
            writer.close()
            return
        task = asyncio.current_task()
        assert task is not None  # a connection is served in a task of its own
        open_connections.add(task)
        try:
            await NativeConnection(interface, stream, writer, hello_timeout, idle_timeout, before_read).serve()
        except asyncio.CancelledError:  # the server is stopping: the connection ends with it
            pass
        finally:
            open_connections.discard(task)

    server = await asyncio.start_server(connected, host, port)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        for task in list(open_connections):
            task.cancel()
        await asyncio.gather(*open_connections, return_exceptions=True)
        await server.wait_closed()


@asynccontextmanager
async def optional_clickhouse_tcp_server(
    store: Store,
    authenticator: Authenticator,
    host: str,
    port: int | None,
    limits: QueryLimits = QueryLimits(),
    before_read: ReadGate | None = None,
    hello_timeout: float = 30,
    max_connections: int = 512,
) -> AsyncIterator[int | None]:
    """The listener when a port is configured (0: any free port), else nothing; yields the bound port or None."""
    if port is None:
        yield None
        return
    async with clickhouse_tcp_server(
        store, authenticator, host, port, limits, before_read, hello_timeout, max_connections=max_connections
    ) as bound:
        yield bound
