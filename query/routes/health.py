"""GET /healthz: the process is up and its store answers."""

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from storage import SCHEMA_VERSION, Store


def health_router() -> APIRouter:
    router = APIRouter(tags=["health"])

    @router.get("/healthz", summary="Liveness and store reachability")
    def healthz(request: Request) -> JSONResponse:
        store: Store = request.app.state.store
        try:
            store.client.command("SELECT 1")
        except Exception as exc:
            return JSONResponse({"status": "unavailable", "store": str(exc)}, status_code=503)
        return JSONResponse({"status": "ok", "embedded": store.embedded, "schema_version": SCHEMA_VERSION})

    return router
