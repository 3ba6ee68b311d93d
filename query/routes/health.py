"""GET /healthz: the process is up, its store answers, and what it acknowledged is stored in time."""

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from storage import SCHEMA_VERSION, Store


def health_router() -> APIRouter:
    router = APIRouter(tags=["health"])

    @router.get("/healthz", summary="Liveness, store reachability and commit lag")
    def healthz(request: Request) -> JSONResponse:
        store: Store = request.app.state.store
        log = request.app.state.writer.log_report()
        lag = {"commit_lag_seconds": log.oldest_age_seconds, "unstored_requests": log.requests}
        try:
            store.client.command("SELECT 1")
        except Exception as exc:
            return JSONResponse({"status": "unavailable", "store": str(exc), **lag}, status_code=503)
        bound = request.app.state.max_commit_lag_seconds
        if log.oldest_age_seconds is not None and log.oldest_age_seconds > bound:
            return JSONResponse({"status": "degraded", "reason": f"acknowledged requests wait more than {bound} s "
                                 "to be stored", **lag}, status_code=503)
        return JSONResponse({"status": "ok", "embedded": store.embedded, "schema_version": SCHEMA_VERSION, **lag})

    return router
