"""GET /api/trials/{trial} (the trial row) and /api/trials/{trial}/behavior (how the agent worked)."""

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse

from query.derive.behavior import derive_behavior
from query.routes.rows_json import behavior_row, trial_row
from query.statements.load_behavior import load_calls
from query.statements.load_trials import LoadedTrial, jobs_of_trial, load_trials
from query.statements.tenancy import tenant_of
from storage import Store


def find_trial(request: Request, trial: str, job: str) -> LoadedTrial:
    """The trial named `trial` (in `job` when given), or 404; 400 when the name is in several jobs."""
    store: Store = request.app.state.store
    tenant = tenant_of(request)
    if not job:
        jobs = jobs_of_trial(store.client, tenant, trial)
        if len(jobs) > 1:
            raise HTTPException(400, f"trial {trial!r} is in several jobs ({', '.join(jobs)}); pass job=")
        job = jobs[0] if jobs else ""
    found = load_trials(store.client, tenant, jobs=[job] if job else [], trial=trial, limit=1) if job else []
    if not found:
        raise HTTPException(404, f"no trial named {trial!r}" + (f" in job {job!r}" if job else ""))
    return found[0]


def trials_router() -> APIRouter:
    router = APIRouter(tags=["trials"])

    @router.get("/api/trials/{trial}", summary="One trial row: outcome, reward, phase timings, tokens, cost")
    def get_trial(trial: str, request: Request, job: str = "") -> JSONResponse:
        return JSONResponse(trial_row(find_trial(request, trial, job)))

    @router.get("/api/trials/{trial}/behavior",
                summary="How the agent worked: tool calls by category, files touched, repeats, tokens per call")
    def trial_behavior(trial: str, request: Request, job: str = "") -> JSONResponse:
        loaded = find_trial(request, trial, job)
        facts = loaded.facts
        store: Store = request.app.state.store
        got = load_calls(store.client, tenant_of(request), trial, facts.job)
        start = facts.agent_execution.start if facts.agent_execution else None
        behavior = derive_behavior(got.calls, got.model_calls, calls_recorded=got.calls_recorded, agent_start=start)
        calls = [{"index": c.index, "name": c.name, "category": c.category.value, "targets": list(c.targets),
                  "failed": c.failed, "timestamp": c.timestamp, "step": c.step, "tool_call_id": c.tool_call_id}
                 for c in got.calls]
        return JSONResponse(behavior_row(facts.job, trial, behavior, n_calls=len(got.calls),
                                         n_model_calls=len(got.model_calls), truncated=got.truncated, calls=calls))

    return router
