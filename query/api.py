"""The query API's routes, gathered for the composition root."""

from fastapi import APIRouter

from query.health import health_router
from query.ingest import ingest_router
from query.spans import spans_router
from query.trace_routes import trace_router


def api_router() -> APIRouter:
    router = APIRouter()
    router.include_router(health_router())
    router.include_router(spans_router())
    router.include_router(trace_router())
    router.include_router(ingest_router())
    return router
