"""GET /api/ingest: what was received, accepted, rejected (with reasons), deduplicated and stored, and what
the write-ahead log holds for the store (its depth and the commit lag)."""

from dataclasses import asdict

from fastapi import APIRouter

from harborlight.api.deps import Counters, StoreDep, Tenant, WriterDep
from harborlight.api.models import IngestReport
from harborlight.read.statements.tenancy import RAW_TENANT_FILTER
from harborlight.store import Store
from harborlight.store.broken_parts import broken_parts, rows_of

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

    @router.get(
        "/api/ingest",
        response_model=IngestReport,
        summary="Ingest accounting: counters since start and rows stored per service and job",
    )
    def ingest(store: StoreDep, tenant: Tenant, writer: WriterDep, counters: Counters, service: str = "") -> dict:
        rows = store.client.query(_STORED, parameters={"tenant": tenant, "service": service}).result_rows
        stored = [{"signal": signal, "service": svc, "job": job or None, "items": n} for signal, svc, job, n in rows]
        operator = not tenant
        return {
            "since_start": counters.snapshot(tenant or None),
            # The writer commits every tenant's requests together, the log holds them all, and a damaged part holds
            # every tenant's rows: the operator's to see.
            "writer": asdict(writer.stats) if operator else None,
            "log": asdict(writer.log_report()) if operator else None,
            "stored": stored,
            "broken_parts": _broken(store) if operator else None,
        }

    return router


def _broken(store: Store) -> dict | None:
    """The damaged parts the engine has set aside and their rows (null: unknown), or null when it will not say."""
    parts = broken_parts(store)
    if parts is None:
        return None
    return {"parts": [asdict(part) for part in parts], "rows": rows_of(parts)}
