"""GET /api/spans: agent events (spans and log events, classified), filtered, in start-time order,
a page at a time; a call told both by a span and by a log event is listed once (harborlight/agent/twins.py)."""

from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel

from harborlight.agent import twins as agent_twins
from harborlight.agent.rules import KINDS
from harborlight.api.deps import StoreDep, Tenant
from harborlight.api.errors import BadRequest
from harborlight.api.routes import cursor
from harborlight.api.tenancy import AGENT_TENANT_FILTER
from harborlight.read.statements.agent_events import COLUMNS, AgentEvent, from_row
from harborlight.read.statements.tool_decisions import with_decisions
from harborlight.store import Store


class EventPage(BaseModel):
    items: list[AgentEvent]
    next_cursor: str | None


# Twins are resolved over whole groups (the filters on job, trial, kind and service select whole
# groups); the other filters apply to what is left. Two forms: without twins among the rows (the
# common case, asked first) and with them. Rows are named after their trials (harborlight/agent/identity.py):
# the identity filters are the scope.
_SCOPE = f"""{AGENT_TENANT_FILTER}
  AND ({{job:String}} = '' OR JobName = {{job:String}})
  AND ({{trial:String}} = '' OR TrialName = {{trial:String}})"""
_GROUPS = f"""{_SCOPE}
  AND ({{kind:String}} = '' OR Kind = {{kind:String}})
  AND ({{service:String}} = '' OR ServiceName = {{service:String}})"""
# Each filter: its condition on one row, and the test that it was not given (None: always applies).
_FILTERS = {
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
_EARLY = "toUnixTimestamp64Nano(Timestamp) <= {bound:Int64}"  # trials with a row by the bound (see _page)
_NARROWING = {name: condition for name, (condition, _) in _FILTERS.items()} | {"early": _EARLY}
_WHERE = "\n  AND ".join(
    condition if absent is None else f"({absent} OR {condition})" for condition, absent in _FILTERS.values()
)
_FORM = agent_twins.form(_GROUPS, scope=_SCOPE)


@cache
def _bound(form: int) -> str:
    """The start time of the n-th row of the window, twins not resolved (a bound for "early", see _page)."""
    return f"""
SELECT max(ts), count() FROM (
    SELECT toUnixTimestamp64Nano(Timestamp) AS ts FROM {agent_twins.source(_SCOPE, form)}
    WHERE {_GROUPS} AND {_NARROWING["window"]}
    ORDER BY ts, EventId LIMIT {{n:UInt32}})"""


@cache
def _select(form: int, narrowed: frozenset[str] = frozenset()) -> str:
    """The page's SQL. With twins, whole trials are left out first when none of their rows matches a
    given filter: a listed call's value is its own or its twin's, and its twin is of the same trial,
    so this only saves the work of resolving twins no listed call can come from."""
    groups = _GROUPS + "".join(
        f"\n  AND (TrialName IS NULL OR TrialName IN (SELECT TrialName FROM {agent_twins.source(_SCOPE, form)}"
        f" WHERE {_GROUPS}"
        f"\n       AND {_NARROWING[f]}))"
        for f in sorted(narrowed)
    )
    return f"""
SELECT {COLUMNS}
FROM ({agent_twins.events(groups, form, scope=_SCOPE)})
WHERE {_WHERE}
ORDER BY ts, EventId
LIMIT {{limit:UInt32}}
"""


MAX_LIMIT = 1000
_FAR_FUTURE = 2**63 - 1
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _page(store: Store, parameters: dict, form: int, narrowed: frozenset[str]) -> list[AgentEvent]:
    """The page's events. With twins and no filter on a fact, trials whose rows all start after a bound
    are left out first: the bound is where the first 2 (then 8) pages' worth of rows end, twins counted.
    The answer is exact when it is a full page that ends by the bound (a trial left out has only later
    rows); otherwise the page is read again without the bound."""

    def read(narrowing: frozenset[str], **extra) -> list[AgentEvent]:
        sql = _select(form, narrowing)
        return [from_row(r) for r in store.client.query(sql, parameters={**parameters, **extra}).result_rows]

    limit = parameters["limit"]
    if form != agent_twins.PLAIN and narrowed <= {"window"}:
        for factor in (2, 8):
            bound, n = store.client.query(_bound(form), parameters={**parameters, "n": limit * factor}).result_rows[0]
            events = read(narrowed | {"early"}, bound=bound or 0)
            if n < limit * factor or (len(events) == limit and events[-1].start_unix_nano <= bound):
                return events  # fewer rows than the bound asked for: no trial was left out
    return read(narrowed)


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
        store: StoreDep,
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
    ) -> EventPage:
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
        form, names = agent_twins.bind(store.client.query(_FORM, parameters=parameters).result_rows[0])
        parameters |= names
        given = {
            "tool_category": tool_category,
            "model": model,
            "status": http_status,
            "outcome": outcome,
            "name": name,
            "window": since or until or cursor_,
        }
        narrowed = frozenset(f for f, value in given.items() if form != agent_twins.PLAIN and value)
        events = _page(store, parameters, form, narrowed)
        items = with_decisions(store.client, tenant, events)
        next_cursor = cursor.encode([items[-1].start_unix_nano, items[-1].event_id]) if len(items) == limit else None
        return EventPage(items=items, next_cursor=next_cursor)

    return router
