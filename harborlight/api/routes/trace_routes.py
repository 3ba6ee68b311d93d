"""GET /api/trials/{trial}/trace: a trial's span tree with kinds, facts, timing quality and tool decisions,
the trace page's rows (harborlight/read/statements/trace_view.py): what `hide` / `hide_span` leave out, each bar's
place on the whole trace or on the `zoom` span, and `totals`, what the producer itself totalled."""

from typing import Annotated, Any

from clickhouse_connect.driver.client import Client
from fastapi import APIRouter, Query
from fastapi.responses import Response

from harborlight.agent.rules import KINDS
from harborlight.api.deps import FreshStore, Tenant
from harborlight.api.errors import BadRequest, NotFound
from harborlight.api.routes.answers import trial_json
from harborlight.read.statements.agent_events import COLUMNS, AgentEvent, from_row
from harborlight.read.statements.load_producer_totals import load_totals
from harborlight.read.statements.resolved_sql import ONE_TRIAL
from harborlight.read.statements.tenancy import AGENT_TENANT_FILTER
from harborlight.read.statements.tool_decisions import with_decisions
from harborlight.read.statements.trace_tree import TraceNode, TraceTree, build_tree
from harborlight.read.statements.trace_view import Axis, Row, View, shown, trace_rows
from harborlight.store import Store

# A trial's events (of one job, when given: a trial name may be in several jobs), as resolved
# (harborlight/read/statements/resolved_sql.py): named after their trials, a call told both by a span and by a log
# event once, and a call told at two levels once, its outer span a group.
_SELECT = f"""
SELECT {COLUMNS}
FROM resolved_events FINAL
WHERE {AGENT_TENANT_FILTER} AND {ONE_TRIAL}
  AND ({{job:String}} = '' OR JobKey = {{job:String}})
ORDER BY ts, EventId
LIMIT {{limit:UInt32}}
"""

MAX_EVENTS = 50_000
# `roots` nests at most this many levels, so any JSON reader reads the answer (Python's stops near 1,500
# levels, Pydantic's near 250); a deeper span is in `rows` (flat, with its depth), its ancestor at the
# last nested level in `unnested`.
MAX_NESTING = 100


class TrialTrace(TraceTree):
    trial: str
    truncated: bool
    hidden: int  # spans the view left out (hide, hide_span), subtrees included
    axis: Axis | None  # None when nothing shown has a clock
    rows: list[Row]
    totals: dict[
        str, Any
    ]  # the producer's own totals ({value, provenance, note}; harborlight/read/derive/producer_totals.py)
    unnested: list[str]  # EventIds at the MAX_NESTING-th level of `roots` whose children are only in `rows`


def nested(roots: list[TraceNode], levels: int = MAX_NESTING) -> tuple[list[TraceNode], list[str]]:
    """The tree to at most `levels` levels (copies; iterative), and the EventIds whose children it leaves out."""
    cut: list[str] = []
    top: list[TraceNode] = []
    stack: list[tuple[TraceNode, list[TraceNode], int]] = [(n, top, 1) for n in reversed(roots)]
    while stack:
        node, siblings, level = stack.pop()
        copy = node.model_copy(update={"children": []})
        siblings.append(copy)
        if level == levels and node.children:
            cut.append(node.event.event_id)
        elif level < levels:
            stack.extend((c, copy.children, level + 1) for c in reversed(node.children))
    return top, cut


def _names(text: str) -> frozenset[str]:
    return frozenset(n.strip() for n in text.split(",") if n.strip())


def trial_events(client: Client, tenant: str, trial: str, job: str = "") -> tuple[list[AgentEvent], bool]:
    """The events of the trial's trace (at most MAX_EVENTS), and whether there were more."""
    parameters = {"trial": trial, "job": job, "limit": MAX_EVENTS + 1, "tenant": tenant}
    rows = client.query(_SELECT, parameters=parameters).result_rows
    return [from_row(r) for r in rows[:MAX_EVENTS]], len(rows) > MAX_EVENTS


def trace_router() -> APIRouter:
    router = APIRouter(tags=["trials"])

    @router.get(
        "/api/trials/{trial}/trace",
        response_model=TrialTrace,
        summary="The trial's span tree: kinds resolved across the trace, facts, timing quality",
    )
    def trial_trace(
        trial: str,
        store: FreshStore,
        tenant: Tenant,
        job: str = "",
        hide: Annotated[str, Query(description="comma-separated kinds left out, each with its subtree")] = "",
        hide_span: Annotated[str, Query(description="comma-separated span EventIds left out with their subtrees")] = "",
        zoom: Annotated[str, Query(description="a span's EventId: the axis is its extent, the rows its subtree")] = "",
    ) -> Response:
        view = View(_names(hide), _names(hide_span), zoom.strip())
        if unknown := sorted(view.hide - set(KINDS)):
            raise BadRequest(f"hide: {', '.join(unknown)} is not a kind (kinds: {', '.join(KINDS)})")
        return trial_json(
            store.client, tenant, trial, ("trace", job, view), lambda: _trace(store, tenant, trial, job, view)
        )

    return router


def _trace(store: Store, tenant: str, trial: str, job: str, view: View) -> TrialTrace:
    """The trial's trace as GET /api/trials/{trial}/trace answers it, `view` applied."""
    events, truncated = trial_events(store.client, tenant, trial, job)
    if not events:
        raise NotFound(f"no agent events for trial {trial!r}" + (f" in job {job!r}" if job else ""))
    tree = build_tree(with_decisions(store.client, tenant, events))
    roots, hidden = shown(tree.roots, view)
    try:
        axis, rows = trace_rows(roots, view)
    except ValueError as exc:
        raise BadRequest(str(exc)) from None
    jobs = [job] if job else sorted({e.job for e in events if e.job})
    totals = load_totals(store.client, tenant, trial, jobs).to_json()
    roots, unnested = nested(roots)
    return TrialTrace(
        trial=trial,
        truncated=truncated,
        hidden=hidden,
        axis=axis,
        rows=rows,
        totals=totals,
        events=tree.events,
        orphans=tree.orphans,
        kinds=tree.kinds,
        roots=roots,
        unnested=unnested,
    )
