"""Process wiring: store -> write-ahead log -> writer (and its committer) -> receivers and API, started in
order and stopped in reverse.

Start: the committer stores whatever the log held before the receivers open. Shutdown: receivers stop
taking requests, the committer stores what the log holds while the store takes it (the rest waits in the
log for the next start), the log closes, then the store.
"""

import asyncio
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass

import uvicorn
from fastapi import FastAPI, Request

from harborlight.api.build import build_api
from harborlight.api.deps import Services
from harborlight.api.errors import Unauthenticated
from harborlight.api.http_connections import guarded_protocol
from harborlight.api.live.route import LiveLimits
from harborlight.commit.batch_inserter import BatchInserter
from harborlight.commit.committer import CommitLimits, Committer
from harborlight.commit.ingest_log import recent_digests
from harborlight.commit.memory_guard import MemoryGuard
from harborlight.commit.writer import REMEMBERED_DIGESTS, Writer
from harborlight.ingest.auth import Authenticator, Unauthorized
from harborlight.ingest.grpc_server import build_grpc_server
from harborlight.ingest.http_routes import otlp_router
from harborlight.ingest.limits import Limits
from harborlight.ingest.receiver import Receiver
from harborlight.ingest.request_body import inflate, read_limited
from harborlight.read.fresh_reads import FreshReads
from harborlight.settings import Settings
from harborlight.sqlport.clickhouse_http import QueryLimits, optional_clickhouse_http_server
from harborlight.sqlport.native_tcp import optional_clickhouse_tcp_server
from harborlight.store import Store, StoreUnavailable, ensure_schema, open_client
from harborlight.store.broken_parts import broken_parts, describe
from harborlight.store.schema_cluster import use_cluster
from harborlight.summaries.refresh import TrialRowsKeeper, reads_derived_rows
from harborlight.transfer.service import Transfers
from harborlight.wal import FsyncPolicy, WriteAheadLog

log = logging.getLogger("harborlight")


@dataclass(frozen=True)
class Running:
    store: Store
    writer: Writer
    grpc_port: int
    http_port: int
    clickhouse_http_port: int | None = None
    clickhouse_tcp_port: int | None = None
    # what a read waits for: everything acknowledged before it stored and resolved (resolved_after)
    caught_up: Callable[[float], Awaitable[int]] | None = None


def open_store(settings: Settings) -> Store:
    # The engine's queries get half of the process's memory budget: the rest is the mapped engine
    # library (~380-480 MiB of file-backed pages), the allocator's caches, Python, gRPC and the queue.
    # Less makes commits fail on memory, and a commit that fails after its main INSERT (in a view)
    # would be stored again when the exporter retries it.
    if settings.cluster and not settings.clickhouse_url:
        raise StoreUnavailable("--cluster names the cluster of a ClickHouse server: give --clickhouse-url too")
    if settings.cluster and settings.retention_days:
        raise StoreUnavailable(
            "with --cluster serve makes no tables: give --retention-days to harborlight schema "
            f"--cluster {settings.cluster} apply, which puts the TTL on them"
        )
    store = open_client(settings.data_dir, settings.clickhouse_url, (settings.memory_limit_mib << 20) // 2)
    if settings.cluster:
        use_cluster(store, settings.cluster)
    else:
        ensure_schema(store.client, settings.retention_days)
    if broken := broken_parts(store):
        log.error(describe(broken))
    return store


def open_log(settings: Settings, store: Store) -> WriteAheadLog:
    policy = FsyncPolicy.parse(settings.wal_fsync)
    # A segment goes once what was stored from it is durable too, unless nothing is to survive a power loss.
    settle = store.settle if policy.interval_ms is not None else None
    return WriteAheadLog(settings.wal_directory, policy, settings.wal_max_mib << 20, settle=settle)


def ingest_limits(settings: Settings) -> Limits:
    return Limits(
        max_items_per_request=settings.max_items_per_request,
        max_attributes_per_item=settings.max_attributes_per_item,
        max_attribute_value_bytes=settings.max_attribute_value_bytes,
        max_expanded_request_bytes=settings.expanded_request_bytes,
    )


def connection_guard(settings: Settings):
    """Each HTTP server's protocol: slow clients timed out, its open connections capped (its own count)."""
    return guarded_protocol(settings.read_timeout_seconds, settings.max_connections)


def clickhouse_limits(settings: Settings) -> QueryLimits:
    """One SQL statement gets at most a quarter of the memory limit and half the cores, so a heavy query cannot
    starve ingest."""
    return QueryLimits(
        max_execution_time=settings.clickhouse_http_query_seconds,
        max_memory_usage=settings.memory_limit_mib * 1024 * 1024 // 4,
        max_threads=max(1, (os.cpu_count() or 2) // 2),
        max_request_bytes=settings.max_request_bytes,
    )


def api_authenticator(authenticator: Authenticator):
    """The API's view of authentication: a tenant ('' when off) or a 401."""

    def authenticate(authorization: str | None) -> str:
        try:
            return authenticator.authenticate(authorization).tenant or ""
        except Unauthorized as exc:
            raise Unauthenticated(str(exc)) from exc

    return authenticate


def api_body_reader(max_bytes: int):
    """The API's view of a request body: read and inflated within the request limit, or the IngestError (a 4xx
    in the API's error map) it earns."""

    async def read(request: Request) -> bytes:
        body = await read_limited(request.headers.get("content-length"), request.stream(), max_bytes)
        return inflate(body, request.headers.get("content-encoding", ""), max_bytes)

    return read


def build_http_app(
    store: Store,
    writer: Writer,
    receiver: Receiver,
    authenticator: Authenticator,
    settings: Settings,
    keeper: TrialRowsKeeper | None = None,
) -> FastAPI:
    services = Services(
        store=store,
        authenticate=api_authenticator(authenticator),
        transfers=Transfers(store, receiver, settings.max_request_bytes),
        read_body=api_body_reader(settings.max_request_bytes),
        writer=writer,
        counters=receiver.counters,
        memory=receiver.memory,
        max_commit_lag_seconds=settings.max_commit_lag_seconds,
        live_limits=LiveLimits.of(settings),
        resolved=keeper.resolve_now if keeper else None,
    )
    return build_api(services, otlp_router(receiver, authenticator, settings.max_request_bytes))


# How long a read waits for the keeper to resolve what was committed before it (a refresh of the changed
# trials: well under a second at nominal load); past it the read goes ahead and the keeper's lag is logged.
KEEPER_WAIT_SECONDS = 30.0


def resolved_after(writer: Writer, keeper: TrialRowsKeeper) -> Callable[..., Awaitable[int]]:
    """What a read waits for (harborlight/read/fresh_reads.py): the commits of everything acknowledged before
    it, then the keeper's resolution of them; how many acknowledged requests it may not see. A SQL statement
    (`statement`, its text) that reads none of the keeper's tables waits for the commits only: a keeper pass holds
    the engine, and a client polling the stored records would otherwise hurry it into the commits' way."""

    async def caught_up(timeout: float, statement: str | None = None, parameters: Iterable[str] = ()) -> int:
        unstored = await writer.caught_up(timeout)
        if statement is not None and not reads_derived_rows(statement, parameters):
            return unstored
        if not await asyncio.to_thread(keeper.caught_up, KEEPER_WAIT_SECONDS):
            log.warning(
                "the keeper has not resolved the last commits after %.0f s (%s): reading without them",
                KEEPER_WAIT_SECONDS,
                keeper.activity(),
            )
        return unstored

    return caught_up


@asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[Running]:
    """Starts in order (store, log, writer: which first stores what the log held, then the receivers)
    and stops in reverse."""
    authenticator = Authenticator.from_settings(settings.auth_token, settings.tokens_file)
    async with AsyncExitStack() as stack:
        store = await asyncio.to_thread(open_store, settings)
        stack.callback(store.client.close)
        known = await asyncio.to_thread(recent_digests, store, REMEMBERED_DIGESTS)
        memory = MemoryGuard(settings.memory_limit_mib << 20)
        inserter = BatchInserter(store, memory)
        stack.callback(inserter.close)
        wal = await asyncio.to_thread(open_log, settings, store)
        stack.callback(wal.close)
        limits = CommitLimits(max_batch_items=settings.batch_items, max_batch_bytes=settings.expanded_request_bytes)
        committer = Committer(wal, inserter, inserter.reachable, limits)
        keeper = TrialRowsKeeper(store).start()  # the stored trial rows, derived again after each commit
        stack.callback(keeper.stop)
        committer.on_commit.append(keeper.wake)
        writer = await stack.enter_async_context(Writer(wal, committer, known))
        receiver = Receiver(writer, ingest_limits(settings), memory)
        grpc_server, grpc_port = build_grpc_server(
            receiver, authenticator, settings.host, settings.grpc_port, settings.max_request_bytes
        )
        await grpc_server.start()
        http_app = build_http_app(store, writer, receiver, authenticator, settings, keeper)
        caught_up = resolved_after(writer, keeper)
        config = uvicorn.Config(
            FreshReads(http_app, caught_up, settings.max_commit_lag_seconds, FreshReads.api_reads),
            host=settings.host,
            port=settings.http_port,
            log_level="warning",
            lifespan="off",
            timeout_graceful_shutdown=5,
            http=connection_guard(settings),
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
            async with (
                optional_clickhouse_http_server(
                    store,
                    authenticator,
                    settings.host,
                    settings.clickhouse_http_port,
                    clickhouse_limits(settings),
                    lambda statement, parameters: caught_up(settings.max_commit_lag_seconds, statement, parameters),
                    connection_guard(settings),
                ) as clickhouse_http_port,
                optional_clickhouse_tcp_server(
                    store,
                    authenticator,
                    settings.host,
                    settings.clickhouse_tcp_port,
                    clickhouse_limits(settings),
                    lambda statement, parameters: caught_up(settings.max_commit_lag_seconds, statement, parameters),
                    settings.read_timeout_seconds,
                    settings.max_connections,
                ) as clickhouse_tcp_port,
            ):
                yield Running(store, writer, grpc_port, http_port, clickhouse_http_port, clickhouse_tcp_port, caught_up)
        finally:
            await grpc_server.stop(grace=5)
            if (live := http_app.state.services.live) is not None:
                live.close()  # open /api/live streams end now rather than hold the HTTP server's shutdown
            http_server.should_exit = True
            await http_task
