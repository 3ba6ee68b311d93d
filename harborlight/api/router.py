"""The query API's routes, gathered for the composition root."""

from fastapi import APIRouter, Depends

from harborlight.api.deps import caller_tenant
from harborlight.api.live.route import live_router
from harborlight.api.routes.health import health_router
from harborlight.api.routes.home import home_router
from harborlight.api.routes.ingest import ingest_router
from harborlight.api.routes.job_routes import jobs_router
from harborlight.api.routes.prometheus import metrics_router
from harborlight.api.routes.report_routes import reports_router
from harborlight.api.routes.spans import spans_router
from harborlight.api.routes.time_routes import time_router
from harborlight.api.routes.trace_routes import trace_router
from harborlight.api.routes.transfer_routes import transfer_router
from harborlight.api.routes.trial_routes import trials_router


def api_router() -> APIRouter:
    """Every route but /healthz (for load balancers) and / (links to the reference) asks for the caller's
    token when auth is on."""
    router = APIRouter()
    router.include_router(home_router())
    router.include_router(health_router())
    guarded = APIRouter(dependencies=[Depends(caller_tenant)])
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
