"""GET /api/spans: agent events (spans and log events, classified), filtered, in start-time order,
a page at a time, as resolved (harborlight/read/statements/resolved_sql.py): a call told both by a span and by a
log event, or at two levels, is listed once, named after its trial."""

from datetime import UTC, datetime, timedelta
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response
from pydantic import BaseModel

from harborlight.agent.rules import KINDS
from harborlight.api.deps import FreshStore, Tenant
from harborlight.api.errors import BadRequest
from harborlight.api.routes import cursor
from harborlight.api.routes.answers import trial_json
from harborlight.read.statements.agent_events import COLUMNS, AgentEvent, from_row
from harborlight.read.statements.resolved_sql import ONE_TRIAL
from harborlight.read.statements.tenancy import AGENT_TENANT_FILTER
from harborlight.read.statements.tool_decisions import with_decisions


class EventPage(BaseModel):
    items: list[AgentEvent]
    next_cursor: str | None


# Each filter: its condition on one row, and the test that it was not given (None: always applies). The rows are
# the resolved events (harborlight/read/statements/resolved_sql.py): each call once, named after its trial.
_FILTERS = {
    "job": ("JobKey = {job:String}", "{job:String} = ''"),
    "trial": (ONE_TRIAL, "{trial:String} = ''"),
    "kind": ("Kind = {kind:String}", "{kind:String} = ''"),
    "service": ("ServiceName = {service:String}", "{service:String} = ''"),
    "tool_category": ("ToolCategory = {tool_category:String}", "{tool_category:String} = ''"),
    "model": ("Model = {model:String}", "{model:String} = ''"),
    "status": ("HttpStatus = {status:Int32}", "{status:Int32} = 0"),
    "outcome": ("Success = ({outcome:String} = 'ok')", "{outcome:String} = ''"),
    "name": ("Name = {name:String}", "{name:String} = ''"),
    "window": (
        """Timestamp >= fromUnixTimestamp64Nano({since:Int64}) AND Timestamp < fromUnixTimestamp64Nano({until:Int64})
  AND (toUnixTimestamp64Nano(Timestamp), EventId) > ({after_ts:Int64}, {after_id:String})""",
        None,
    ),
}
_WHERE = "\n  AND ".join(
    condition if absent is None else f"({absent} OR {condition})" for condition, absent in _FILTERS.values()
)
_SELECT = f"""
SELECT {COLUMNS}
FROM resolved_events FINAL
WHERE {AGENT_TENANT_FILTER} AND NOT OuterTelling
  AND {_WHERE}
ORDER BY ts, EventId
LIMIT {{limit:UInt32}}
"""


MAX_LIMIT = 1000
_FAR_FUTURE = 2**63 - 1
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _nanos(value: datetime | None, default: int) -> int:
    """Unix nanoseconds of `value`, exactly (no float); a time without a zone is UTC, as stored."""
    if value is None:
        return default
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return (value - _EPOCH) // timedelta(microseconds=1) * 1000


def _status(status: str) -> tuple[int, str]:
    """`status` is an HTTP status (429) or an outcome (ok / error)."""
    if status.isdigit():
        return int(status), ""
    if status in ("", "ok", "error"):
        return 0, status
    raise BadRequest("status is an HTTP status code (e.g. 429) or one of ok, error")


def spans_router() -> APIRouter:
    router = APIRouter(tags=["spans"])

    @router.get(
        "/api/spans",
        response_model=EventPage,
        summary="Agent events (spans and log events) by kind, job, trial, tool category, model, status, time",
    )
    def list_spans(
        store: FreshStore,
        tenant: Tenant,
        job: str = "",
        trial: str = "",
        kind: Annotated[str, Query(description=f"one of {', '.join(KINDS)}")] = "",
        tool_category: Annotated[str, Query(description="plan, search, read, edit, execute or other")] = "",
        model: str = "",
        status: Annotated[str, Query(description="HTTP status (e.g. 429), or ok / error")] = "",
        service: str = "",
        name: Annotated[str, Query(description="span name or event name")] = "",
        since: Annotated[datetime | None, Query(description="ISO 8601 start, inclusive")] = None,
        until: Annotated[datetime | None, Query(description="ISO 8601 end, exclusive")] = None,
        limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = 100,
        cursor_: Annotated[str | None, Query(alias="cursor")] = None,
    ) -> Response:
        if kind and kind not in KINDS:
            raise BadRequest(f"kind must be one of {', '.join(KINDS)}")
        http_status, outcome = _status(status)
        after = cursor.decode(cursor_, 2) or [-1, ""]
        parameters = {
            "job": job,
            "trial": trial,
            "kind": kind,
            "tool_category": tool_category,
            "model": model,
            "status": http_status,
            "outcome": outcome,
            "service": service,
            "name": name,
            "since": _nanos(since, 0),
            "until": _nanos(until, _FAR_FUTURE),
            "after_ts": int(after[0]),
            "after_id": str(after[1]),
            "limit": limit,
            "tenant": tenant,
        }

        def page() -> EventPage:
            events = [from_row(r) for r in store.client.query(_SELECT, parameters=parameters).result_rows]
            items = with_decisions(store.client, tenant, events)
            last = [items[-1].start_unix_nano, items[-1].event_id] if len(items) == limit else None
            return EventPage(items=items, next_cursor=cursor.encode(last) if last else None)

        if not trial:  # the events of no one trial: read as they are
            return Response(page().model_dump_json(by_alias=True), media_type="application/json")
        return trial_json(store.client, tenant, trial, ("spans", tuple(sorted(parameters.items()))), page)

    return router
