"""The query API's routes, gathered for the composition root."""

from fastapi import APIRouter, Depends

from query.health import health_router
from query.ingest import ingest_router
from query.job_routes import jobs_router
from query.live import live_router
from query.prometheus import metrics_router
from query.report_routes import reports_router
from query.spans import spans_router
from query.tenancy import require_caller
from query.time_routes import time_router
from query.trace_routes import trace_router
from query.transfer_routes import transfer_router
from query.trial_routes import trials_router


def api_router() -> APIRouter:
    """Every route but /healthz (for load balancers) asks for the caller's token when auth is on."""
    router = APIRouter()
    router.include_router(health_router())
    guarded = APIRouter(dependencies=[Depends(require_caller)])
    guarded.include_router(spans_router())
    guarded.include_router(trace_router())
    guarded.include_router(ingest_router())
    guarded.include_router(jobs_router())
    guarded.include_router(trials_router())
    guarded.include_router(time_router())
    guarded.include_router(reports_router())
    guarded.include_router(metrics_router())
    guarded.include_router(transfer_router())
    guarded.include_router(live_router())
    router.include_router(guarded)
    return router
