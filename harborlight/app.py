"""Process wiring: store -> writer -> receivers and API, started in order and stopped in reverse.

Shutdown order: receivers stop taking requests, the writer drains what it acknowledged to wait for,
then the store closes.
"""

import asyncio
import hashlib
import logging
import queue
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from itertools import groupby

import uvicorn
from fastapi import FastAPI, HTTPException, Request

from collector.auth import Authenticator, Unauthorized
from collector.errors import IngestError, brief
from collector.grpc_server import build_grpc_server
from collector.http_routes import otlp_router
from collector.limits import Limits
from collector.memory_guard import MemoryGuard
from collector.receiver import Receiver
from collector.request_body import inflate, read_limited
from collector.writer import Pending, Writer, WriterLimits
from harborlight.http_connections import guarded_protocol
from harborlight.settings import Settings
from importers.service import Transfers
from query.api import api_router
from sqlport.clickhouse_http import QueryLimits, optional_clickhouse_http_server
from storage import Signal, Store, ensure_schema, insert_requests, open_client, recent_digests, record_digests

log = logging.getLogger("harborlight")


@dataclass(frozen=True)
class Running:
    store: Store
    writer: Writer
    grpc_port: int
    http_port: int
    clickhouse_http_port: int | None = None


def open_store(settings: Settings) -> Store:
    # The engine's queries get half of the process's memory budget: the rest is the mapped engine
    # library (~380-480 MiB of file-backed pages), the allocator's caches, Python, gRPC and the queue.
    # Less makes commits fail on memory, and a commit that fails after its main INSERT (in a view)
    # would be stored again when the exporter retries it.
    store = open_client(settings.data_dir, settings.clickhouse_url, (settings.memory_limit_mib << 20) // 2)
    ensure_schema(store.client, settings.retention_days)
    return store


class Committer:
    """Commits the writer's batches on connections of its own (embedded chDB serialises the calls of
    one connection, so API queries never wait behind a commit), and hands the engine's cached memory
    back when the process grows toward its limit."""

    def __init__(self, store: Store, connections: int, memory: MemoryGuard) -> None:
        self._memory = memory
        self._connections = [store.another_connection() for _ in range(connections)]
        self._idle: queue.SimpleQueue[Store] = queue.SimpleQueue()
        for connection in self._connections:
            self._idle.put(connection)

    def __call__(self, batch: list[Pending]) -> None:
        def key(p: Pending) -> tuple[str, str]:
            return p.signal.value, p.tenant or ""

        # The same batch, retried after a failure, gets the same token (storage.insert_requests).
        token = hashlib.blake2b(b"".join(sorted(p.digest for p in batch)), digest_size=16).hexdigest()
        connection = self._idle.get()
        try:
            for (signal, tenant), group in groupby(sorted(batch, key=key), key=key):
                group = list(group)
                insert_requests(connection, Signal(signal), [p.payload for p in group], tenant or None,
                                nested=any(p.nested for p in group), retry_token=token)
            self._after_commit(connection, batch)
        finally:
            self._idle.put(connection)

    def _after_commit(self, connection: Store, batch: list[Pending]) -> None:
        """Bookkeeping once the rows are stored: a failure here must not fail (and so re-store) the batch."""
        try:
            record_digests(connection, [(p.digest, p.signal.value, p.items) for p in batch])
        except Exception as exc:  # dedup across restarts weakens for these requests; nothing is lost
            log.warning("could not record %d request digests: %s", len(batch), brief(exc))
        if self._memory.wants_purge():
            try:
                connection.release_memory()
            except Exception as exc:
                log.warning("could not release engine memory: %s", brief(exc))

    def close(self) -> None:
        for connection in self._connections:
            if connection.embedded:
                connection.client.close()


def ingest_limits(settings: Settings) -> Limits:
    return Limits(
        max_items_per_request=settings.max_items_per_request,
        max_attributes_per_item=settings.max_attributes_per_item,
        max_attribute_value_bytes=settings.max_attribute_value_bytes,
        max_expanded_request_bytes=settings.expanded_request_bytes,
    )


def clickhouse_limits(settings: Settings) -> QueryLimits:
    """One SQL statement gets at most a quarter of the memory limit, so a heavy query cannot starve ingest."""
    return QueryLimits(max_execution_time=settings.clickhouse_http_query_seconds,
                       max_memory_usage=settings.memory_limit_mib * 1024 * 1024 // 4,
                       max_request_bytes=settings.max_request_bytes)


def api_authenticator(authenticator: Authenticator):
    """The API's view of authentication: a tenant ('' when off) or a 401."""

    def authenticate(authorization: str | None) -> str:
        try:
            return authenticator.authenticate(authorization).tenant or ""
        except Unauthorized as exc:
            raise HTTPException(401, str(exc), headers={"WWW-Authenticate": "Bearer"}) from exc

    return authenticate


def api_body_reader(max_bytes: int):
    """The API's view of a request body: read and inflated within the request limit, or the 4xx it earns."""

    async def read(request: Request) -> bytes:
        try:
            body = await read_limited(request.headers.get("content-length"), request.stream(), max_bytes)
            return inflate(body, request.headers.get("content-encoding", ""), max_bytes)
        except IngestError as exc:
            raise HTTPException(exc.http_status, str(exc)) from None

    return read


def build_http_app(
    store: Store, writer: Writer, receiver: Receiver, authenticator: Authenticator, settings: Settings
) -> FastAPI:
    app = FastAPI(title="harborlight", summary="OTLP in, agent behaviour out", version="0.1.0")
    app.state.store = store
    app.state.counters = receiver.counters
    app.state.memory = receiver.memory
    app.state.writer = writer
    app.state.authenticate = api_authenticator(authenticator)
    app.state.read_body = api_body_reader(settings.max_request_bytes)
    app.state.transfers = Transfers(store, receiver, settings.max_request_bytes)
    app.include_router(otlp_router(receiver, authenticator, settings.max_request_bytes))
    app.include_router(api_router())
    return app


@asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[Running]:
    authenticator = Authenticator.from_settings(settings.auth_token, settings.tokens_file)
    store = await asyncio.to_thread(open_store, settings)
    limits = WriterLimits(
        max_queued_items=settings.max_queued_items,
        max_batch_items=settings.batch_items,
        max_batch_bytes=settings.expanded_request_bytes,
        linger_seconds=settings.linger_ms / 1000,
    )
    known = await asyncio.to_thread(recent_digests, store, limits.remembered_digests)
    memory = MemoryGuard(settings.memory_limit_mib << 20)
    committer = Committer(store, limits.concurrent_commits, memory)
    try:
        async with Writer(committer, limits, known) as writer:
            receiver = Receiver(writer, ingest_limits(settings), memory)
            grpc_server, grpc_port = build_grpc_server(
                receiver, authenticator, settings.host, settings.grpc_port, settings.max_request_bytes
            )
            await grpc_server.start()
            http_app = build_http_app(store, writer, receiver, authenticator, settings)
            config = uvicorn.Config(
                http_app,
                host=settings.host, port=settings.http_port,
                log_level="warning", lifespan="off", timeout_graceful_shutdown=5,
                http=guarded_protocol(settings.read_timeout_seconds, settings.max_connections),
            )
            http_server = uvicorn.Server(config)
            http_task = asyncio.create_task(http_server.serve())
            while not http_server.started:
                if http_task.done():
                    await grpc_server.stop(None)
                    http_task.result()
                    raise OSError(f"cannot listen for OTLP/HTTP on {settings.host}:{settings.http_port}")
                await asyncio.sleep(0.01)
            http_port = http_server.servers[0].sockets[0].getsockname()[1]
            try:
                async with optional_clickhouse_http_server(
                    store, authenticator, settings.host, settings.clickhouse_http_port, clickhouse_limits(settings)
                ) as clickhouse_http_port:
                    yield Running(store, writer, grpc_port, http_port, clickhouse_http_port)
            finally:
                await grpc_server.stop(grace=5)
                if (live := getattr(http_app.state, "live", None)) is not None:
                    live.close()  # open /api/live streams end now rather than hold the HTTP server's shutdown
                http_server.should_exit = True
                await http_task
    finally:
        committer.close()
        store.client.close()
