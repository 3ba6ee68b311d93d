"""The query API's routes, gathered for the composition root."""

from fastapi import APIRouter, Depends

from query.live.route import live_router
from query.routes.health import health_router
from query.routes.home import home_router
from query.routes.ingest import ingest_router
from query.routes.job_routes import jobs_router
from query.routes.prometheus import metrics_router
from query.routes.report_routes import reports_router
from query.routes.spans import spans_router
from query.routes.time_routes import time_router
from query.routes.trace_routes import trace_router
from query.routes.transfer_routes import transfer_router
from query.routes.trial_routes import trials_router
from query.statements.tenancy import require_caller


def api_router() -> APIRouter:
    """Every route but /healthz (for load balancers) and / (links to the reference) asks for the caller's
    token when auth is on."""
    router = APIRouter()
    router.include_router(home_router())
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
