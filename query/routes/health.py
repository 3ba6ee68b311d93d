"""GET /healthz: the process is up, its store answers, what it acknowledged is stored in time, and whether the
store has set damaged parts aside."""

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from storage import SCHEMA_VERSION, Store
from storage.broken_parts import broken_parts


def health_router() -> APIRouter:
    router = APIRouter(tags=["health"])

    @router.get("/healthz", summary="Liveness, store reachability, commit lag and damaged parts")
    def healthz(request: Request) -> JSONResponse:
        store: Store = request.app.state.store
        log = request.app.state.writer.log_report()
        lag = {"commit_lag_seconds": log.oldest_age_seconds, "unstored_requests": log.requests}
        try:
            store.client.command("SELECT 1")
            broken = broken_parts(store)
        except Exception as exc:
            return JSONResponse({"status": "unavailable", "store": str(exc), **lag}, status_code=503)
        # How many only: without a token, no row counts (a part holds every tenant's); GET /api/ingest has them.
        parts = {"broken_parts": None if broken is None else len(broken)}
        bound = request.app.state.max_commit_lag_seconds
        if log.oldest_age_seconds is not None and log.oldest_age_seconds > bound:
            return JSONResponse({"status": "degraded", "reason": f"acknowledged requests wait more than {bound} s "
                                 "to be stored", **lag, **parts}, status_code=503)
        if broken:  # still 200: ingest and queries work, but some stored rows answer no query
            return JSONResponse({"status": "degraded", "reason": f"{len(broken)} damaged part(s) set aside by the "
                                 "engine: their rows answer no query", "embedded": store.embedded,
                                 "schema_version": SCHEMA_VERSION, **lag, **parts})
        return JSONResponse({"status": "ok", "embedded": store.embedded, "schema_version": SCHEMA_VERSION, **lag,
                             **parts})

    return router
