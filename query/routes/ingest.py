"""GET /api/ingest: what was received, accepted, rejected (with reasons), deduplicated and stored, and what
the write-ahead log holds for the store (its depth and the commit lag)."""

from dataclasses import asdict

from fastapi import APIRouter, Request

from query.statements.tenancy import RAW_TENANT_FILTER, tenant_of
from storage import Store

_STORED = f"""
SELECT 'traces' AS signal, ServiceName, ResourceAttributes['harbor.job.name'] AS job, count() FROM otel_traces
WHERE {RAW_TENANT_FILTER} AND ({{service:String}} = '' OR ServiceName = {{service:String}})
GROUP BY ServiceName, job
UNION ALL
SELECT 'logs', ServiceName, ResourceAttributes['harbor.job.name'] AS job, count() FROM otel_logs
WHERE {RAW_TENANT_FILTER} AND ({{service:String}} = '' OR ServiceName = {{service:String}})
GROUP BY ServiceName, job
ORDER BY 1, 2, 3
"""


def ingest_router() -> APIRouter:
    router = APIRouter(tags=["ingest"])

    @router.get("/api/ingest", summary="Ingest accounting: counters since start and rows stored per service and job")
    def ingest(request: Request, service: str = "") -> dict:
        store: Store = request.app.state.store
        rows = store.client.query(_STORED, parameters={"tenant": tenant_of(request), "service": service}).result_rows
        stored = [{"signal": signal, "service": svc, "job": job or None, "items": n} for signal, svc, job, n in rows]
        return {
            "since_start": request.app.state.counters.snapshot(tenant_of(request) or None),
            # The writer commits every tenant's requests together, and the log holds them all: the operator's to see.
            "writer": None if tenant_of(request) else asdict(request.app.state.writer.stats),
            "log": None if tenant_of(request) else asdict(request.app.state.writer.log_report()),
            "stored": stored,
        }

    return router
