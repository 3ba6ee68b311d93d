"""GET /api/trials/{trial}/trace: a trial's span tree with kinds, facts, timing quality and tool decisions."""

from fastapi import APIRouter, HTTPException, Request

from query.agent_events import COLUMNS, from_row
from query.tenancy import AGENT_TENANT_FILTER, tenant_of
from query.tool_decisions import with_decisions
from query.trace_tree import TraceTree, build_tree
from storage import Store, agent_twins

# A trial's events (of one job, when given: a trial name may be in several jobs), named after their trials
# (storage/agent_identity.py: a child span without session.id is its trace's); a call told both by a span
# and by a log event once (storage/agent_twins.py).
_TRIAL = f"{AGENT_TENANT_FILTER} AND TrialName = {{trial:String}} AND ({{job:String}} = '' OR JobName = {{job:String}})"
_SELECT = {twins: f"""
SELECT {COLUMNS}
FROM ({agent_twins.events(_TRIAL, twins, scope=_TRIAL)})
ORDER BY ts, EventId
LIMIT {{limit:UInt32}}
""" for twins in (False, True)}
_TWINS = agent_twins.present(_TRIAL, scope=_TRIAL)

MAX_EVENTS = 50_000


class TrialTrace(TraceTree):
    trial: str
    truncated: bool


def trace_router() -> APIRouter:
    router = APIRouter(tags=["trials"])

    @router.get("/api/trials/{trial}/trace", response_model=TrialTrace,
                summary="The trial's span tree: kinds resolved across the trace, facts, timing quality")
    def trial_trace(trial: str, request: Request, job: str = "") -> TrialTrace:
        store: Store = request.app.state.store
        tenant = tenant_of(request)
        parameters = {"trial": trial, "job": job, "limit": MAX_EVENTS + 1, "tenant": tenant}
        twins = bool(store.client.query(_TWINS, parameters=parameters).result_rows)
        rows = store.client.query(_SELECT[twins], parameters=parameters).result_rows
        if not rows:
            raise HTTPException(404, f"no agent events for trial {trial!r}" + (f" in job {job!r}" if job else ""))
        tree = build_tree(with_decisions(store.client, tenant, [from_row(r) for r in rows[:MAX_EVENTS]]))
        return TrialTrace(trial=trial, truncated=len(rows) > MAX_EVENTS, **tree.model_dump())

    return router
