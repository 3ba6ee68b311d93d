"""GET /healthz: the process is up, its store answers, what it acknowledged is stored in time, commits are
not failing, the log's and the store's disks are not (nearly) full, and whether the store has set damaged
parts aside. `disks()` and `commit_state()` are what /metrics reports of the same."""

import os
import time
from dataclasses import dataclass
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from harborlight.api.deps import Services, Svc, WriterDep
from harborlight.api.models import Health
from harborlight.store import SCHEMA_VERSION, Store
from harborlight.store.broken_parts import broken_parts

# A disk is nearly full below this much free, or this share of its size when that is less (a small disk).
NEARLY_FULL_BYTES = 256 << 20
NEARLY_FULL_SHARE = 0.05
# Commits failing this long (the store's disk full, its memory, an outage) degrade /healthz at once, before
# the commit lag passes its bound.
FAILING_SECONDS = 5.0


@dataclass(frozen=True)
class Disk:
    name: str  # log, store, spool
    free_bytes: int
    total_bytes: int

    @property
    def nearly_full(self) -> bool:
        return self.free_bytes < min(NEARLY_FULL_BYTES, self.total_bytes * NEARLY_FULL_SHARE)


def _statvfs(name: str, path: Path | None) -> Disk | None:
    if path is None:
        return None
    try:
        fs = os.statvfs(path)
    except OSError:
        return None
    return Disk(name, fs.f_bavail * fs.f_frsize, fs.f_blocks * fs.f_frsize)


def _server_disk(store: Store) -> Disk | None:
    """The server's default disk (its data path), as it reports it."""
    try:
        rows = store.client.query("SELECT free_space, total_space FROM system.disks WHERE name = 'default'").result_rows
    except Exception:
        return None
    return Disk("store", int(rows[0][0]), int(rows[0][1])) if rows else None


def disks(state: Services) -> list[Disk]:
    """The file systems of the write-ahead log, the store's data, and (embedded) the spool the commits stage
    their requests in, with their free bytes."""
    store: Store = state.store
    assert state.writer is not None  # (deps.WriterDep: a 503 where there is none)
    log = state.writer.log_report()
    found = []
    if log.disk_free_bytes is not None and log.disk_total_bytes is not None:
        found.append(Disk("log", log.disk_free_bytes, log.disk_total_bytes))
    if store.embedded:
        found += [d for d in (_statvfs("store", store.data_dir), _statvfs("spool", store.spool_dir)) if d]
    elif (disk := _server_disk(store)) is not None:
        found.append(disk)
    return found


def commit_state(stats) -> dict:
    failing = stats.failing_since is not None
    return {
        "failing": failing,
        "failing_seconds": round(time.time() - stats.failing_since, 3) if failing else 0.0,
        "consecutive_failures": stats.consecutive_failures,
        "fault": stats.last_fault,  # the store-wide fault being waited out (NOT_ENOUGH_SPACE, ENOSPC, ...)
    }


def health_router() -> APIRouter:
    router = APIRouter(tags=["health"])

    @router.get(
        "/healthz",
        response_model=Health,
        responses={503: {"model": Health}},
        summary="Liveness, store reachability, commit lag and failures, full disks, damaged parts",
    )
    def healthz(services: Svc, writer: WriterDep) -> JSONResponse:
        store = services.store
        log = writer.log_report()
        lag = {"commit_lag_seconds": log.oldest_age_seconds, "unstored_requests": log.requests}
        commits = commit_state(writer.stats)
        found = disks(services)
        facts = {
            **lag,
            "commits": commits,
            "disks": {
                d.name: {"free_bytes": d.free_bytes, "total_bytes": d.total_bytes, "nearly_full": d.nearly_full}
                for d in found
            },
        }
        try:
            store.client.command("SELECT 1")
            broken = broken_parts(store)
        except Exception as exc:
            return JSONResponse({"status": "unavailable", "store": str(exc), **facts}, status_code=503)
        # How many only: without a token, no row counts (a part holds every tenant's); GET /api/ingest has them.
        parts = {"broken_parts": None if broken is None else len(broken)}
        reasons = []
        bound = services.max_commit_lag_seconds
        if log.oldest_age_seconds is not None and log.oldest_age_seconds > bound:
            reasons.append(f"acknowledged requests wait more than {bound} s to be stored")
        if commits["failing"] and commits["failing_seconds"] >= FAILING_SECONDS:
            reasons.append(
                f"commits have failed for {commits['failing_seconds']:.0f} s"
                + (
                    f" ({commits['fault']}: the store cannot take writes; the log holds the requests)"
                    if commits["fault"]
                    else ""
                )
            )
        for d in found:
            if d.nearly_full:
                reasons.append(
                    f"the {d.name} disk is nearly full ({d.free_bytes >> 10} KiB free of {d.total_bytes >> 20} MiB)"
                )
        if reasons:
            return JSONResponse(
                {"status": "degraded", "reason": "; ".join(reasons), "reasons": reasons, **facts, **parts},
                status_code=503,
            )
        if broken:  # still 200: ingest and queries work, but some stored rows answer no query
            return JSONResponse(
                {
                    "status": "degraded",
                    "reason": f"{len(broken)} damaged part(s) set aside by the engine: their rows answer no query",
                    "embedded": store.embedded,
                    "schema_version": SCHEMA_VERSION,
                    **facts,
                    **parts,
                }
            )
        return JSONResponse(
            {"status": "ok", "embedded": store.embedded, "schema_version": SCHEMA_VERSION, **facts, **parts}
        )

    return router
