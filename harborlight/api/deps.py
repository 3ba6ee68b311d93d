"""What the API's routes are given, by type: the composition root hands `build_api` one `Services`, and a route
asks for a `Store`, the caller's `Tenant`, the `Writer`... as typed parameters (`store: StoreDep`), never by
looking on app.state. A service this process does not have (the CLI reads a store: no writer, no receiver) is
a 503 for the routes that need it."""

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Protocol

from fastapi import Depends, Request

from harborlight.api.errors import NotAvailable
from harborlight.commit.memory_guard import MemoryGuard
from harborlight.commit.writer import Writer
from harborlight.ingest.accounting import IngestCounters
from harborlight.store import Store
from harborlight.summaries.refresh import refresh

if TYPE_CHECKING:
    from harborlight.api.live.route import LiveFeed, LiveLimits


class TransferService(Protocol):
    """Import and export (harborlight/transfer/service.py's Transfers): the API does not import the importers."""

    async def import_otlp(self, name: str, data: bytes, tenant: str) -> dict[str, Any]: ...

    def export_tarball(self, job: str, jobs_dir: str, tenant: str, snapshot: bool) -> bytes: ...

    def trajectory(self, trial: str, job: str, tenant: str) -> str: ...


@dataclass
class Services:
    """Everything the routes use. `authenticate` turns an Authorization header into the caller's tenant ('' when
    tenants are off) or raises errors.Unauthenticated."""

    store: Store
    authenticate: Callable[[str | None], str]
    transfers: TransferService | None = None
    read_body: Callable[[Request], Awaitable[bytes]] | None = None  # within the request limit, inflated
    writer: Writer | None = None
    counters: IngestCounters | None = None
    memory: MemoryGuard | None = None
    max_commit_lag_seconds: float = 1.0
    live_limits: "LiveLimits | None" = None
    live: "LiveFeed | None" = None  # attached to the writer by the first watcher of /api/live
    # a new keeper pass, waited for (at most the seconds given; False when they passed): the server's keeper
    resolved: Callable[[float], bool] | None = None


def services(request: Request) -> Services:
    given: Services = request.app.state.services  # (build_api puts it there)
    return given


def _store(request: Request) -> Store:
    return services(request).store


def caller_tenant(request: Request) -> str:
    """The caller's tenant ('' when tenants are off), or a 401; every guarded route runs it once per request."""
    return services(request).authenticate(request.headers.get("authorization"))


def _fresh_store(
    request: Request, store: Annotated[Store, Depends(_store)], tenant: Annotated[str, Depends(caller_tenant)]
) -> Store:
    """The store, its resolved events and trial rows fresh: a server's keeper resolved them before the read
    began (harborlight/app.py resolved_after); a store this process reads alone (the CLI's) is refreshed here."""
    if services(request).writer is None:
        refresh(store.client, tenant)
    return store


def _writer(request: Request) -> Writer:
    if (writer := services(request).writer) is None:
        raise NotAvailable("this process stores nothing: ask the server that receives the telemetry")
    return writer


def _counters(request: Request) -> IngestCounters:
    if (counters := services(request).counters) is None:
        raise NotAvailable("this process receives nothing: ask the server that receives the telemetry")
    return counters


# Exports and trajectories read the resolved events: fresh as any read (_fresh_store).
def _transfers(request: Request, _: Annotated[Store, Depends(_fresh_store)]) -> TransferService:
    if (transfers := services(request).transfers) is None:
        raise NotAvailable("import and export are not available on this server")
    return transfers


def _trajectories(request: Request, _: Annotated[Store, Depends(_fresh_store)]) -> TransferService | None:
    return services(request).transfers


async def _body(request: Request) -> bytes:
    if (read := services(request).read_body) is None:
        raise NotAvailable("this process takes no uploads")
    return await read(request)


Svc = Annotated[Services, Depends(services)]
StoreDep = Annotated[Store, Depends(_store)]
FreshStore = Annotated[Store, Depends(_fresh_store)]  # the caller's resolved events and trial rows fresh
Tenant = Annotated[str, Depends(caller_tenant)]
WriterDep = Annotated[Writer, Depends(_writer)]
Counters = Annotated[IngestCounters, Depends(_counters)]
Transfers = Annotated[TransferService, Depends(_transfers)]
Body = Annotated[bytes, Depends(_body)]
Trajectories = Annotated[TransferService | None, Depends(_trajectories)]  # None: none built here
