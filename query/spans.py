"""GET /api/spans: stored spans, filtered, in start-time order, a page at a time."""

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel

from query import cursor
from storage import Store


class SpanRow(BaseModel):
    trace_id: str
    span_id: str
    parent_span_id: str
    name: str
    kind: str
    service: str
    start_unix_nano: int
    duration_ns: int
    status_code: str
    status_message: str
    job: str | None
    trial: str | None
    attributes: dict[str, str]
    resource: dict[str, str]


class SpanPage(BaseModel):
    items: list[SpanRow]
    next_cursor: str | None


_SELECT = """
SELECT TraceId, SpanId, ParentSpanId, SpanName, SpanKind, ServiceName, toUnixTimestamp64Nano(Timestamp) AS ts,
       Duration, StatusCode, StatusMessage, ResourceAttributes['harbor.job.name'] AS job,
       ResourceAttributes['harbor.trial.name'] AS trial, SpanAttributes, ResourceAttributes
FROM otel_traces
WHERE ({job:String} = '' OR job = {job:String})
  AND ({trial:String} = '' OR trial = {trial:String})
  AND ({service:String} = '' OR ServiceName = {service:String})
  AND ({name:String} = '' OR SpanName = {name:String})
  AND Timestamp >= fromUnixTimestamp64Nano({since:Int64})
  AND Timestamp < fromUnixTimestamp64Nano({until:Int64})
  AND (ts, TraceId, SpanId) > ({after_ts:Int64}, {after_trace:String}, {after_span:String})
ORDER BY ts, TraceId, SpanId
LIMIT {limit:UInt32}
"""

MAX_LIMIT = 1000
_FAR_FUTURE = 2**63 - 1


def _nanos(value: datetime | None, default: int) -> int:
    return default if value is None else int(value.timestamp() * 1_000_000_000)


def spans_router() -> APIRouter:
    router = APIRouter(tags=["spans"])

    @router.get("/api/spans", response_model=SpanPage, summary="Spans by job, trial, service, name and time")
    def list_spans(
        request: Request,
        job: str = "",
        trial: str = "",
        service: str = "",
        name: str = "",
        since: Annotated[datetime | None, Query(description="ISO 8601 start, inclusive")] = None,
        until: Annotated[datetime | None, Query(description="ISO 8601 end, exclusive")] = None,
        limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = 100,
        cursor_: Annotated[str | None, Query(alias="cursor")] = None,
    ) -> SpanPage:
        store: Store = request.app.state.store
        after = cursor.decode(cursor_, 3) or [-1, "", ""]
        rows = store.client.query(
            _SELECT,
            parameters={
                "job": job, "trial": trial, "service": service, "name": name,
                "since": _nanos(since, 0), "until": _nanos(until, _FAR_FUTURE),
                "after_ts": int(after[0]), "after_trace": str(after[1]), "after_span": str(after[2]),
                "limit": limit,
            },
        ).result_rows
        items = [
            SpanRow(
                trace_id=r[0], span_id=r[1], parent_span_id=r[2], name=r[3], kind=r[4], service=r[5],
                start_unix_nano=r[6], duration_ns=r[7], status_code=r[8], status_message=r[9],
                job=r[10] or None, trial=r[11] or None, attributes=r[12], resource=r[13],
            )
            for r in rows
        ]
        next_cursor = cursor.encode([rows[-1][6], rows[-1][0], rows[-1][1]]) if len(rows) == limit else None
        return SpanPage(items=items, next_cursor=next_cursor)

    return router
