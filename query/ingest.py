"""GET /api/ingest: what was received, accepted, rejected (with reasons), deduplicated and stored."""

from dataclasses import asdict

from fastapi import APIRouter, Request

from storage import Store

_STORED = """
SELECT 'traces' AS signal, ServiceName, ResourceAttributes['harbor.job.name'] AS job, count() FROM otel_traces
GROUP BY ServiceName, job
UNION ALL
SELECT 'logs', ServiceName, ResourceAttributes['harbor.job.name'] AS job, count() FROM otel_logs
GROUP BY ServiceName, job
ORDER BY 1, 2, 3
"""


def ingest_router() -> APIRouter:
    router = APIRouter(tags=["ingest"])

    @router.get("/api/ingest", summary="Ingest accounting: counters since start and rows stored per service and job")
    def ingest(request: Request, service: str | None = None) -> dict:
        store: Store = request.app.state.store
        stored = [
            {"signal": signal, "service": svc, "job": job or None, "items": n}
            for signal, svc, job, n in store.client.query(_STORED).result_rows
            if service is None or svc == service
        ]
        return {
            "since_start": request.app.state.counters.snapshot(),
            "writer": asdict(request.app.state.writer.stats),
            "stored": stored,
        }

    return router
