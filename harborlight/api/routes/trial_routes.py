"""GET /api/trials/{trial} (the trial row) and /api/trials/{trial}/behavior (how the agent worked)."""

import json
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response

from harborlight.api.deps import FreshStore, Tenant, Trajectories, TransferService
from harborlight.api.errors import BadRequest, NotFound
from harborlight.api.models import TrialBehavior, TrialRow
from harborlight.api.routes.answers import trial_json
from harborlight.read.derive.behavior import derive_behavior
from harborlight.read.derive.last_message import last_agent_message
from harborlight.read.derive.records import LoadedTrial
from harborlight.read.derive.rows_json import behavior_row
from harborlight.read.derive.trajectory_steps import call_failure, observations, step_durations
from harborlight.read.statements.load_behavior import load_calls
from harborlight.read.statements.stored_trials import jobs_of_trial, stored_rows, stored_trials
from harborlight.store import Store


def job_of(store: Store, tenant: str, trial: str, job: str) -> str:
    """The trial's job: `job` when given, else the one job the trial is in ('' for none); 400 when it is in
    several."""
    if not job:
        jobs = jobs_of_trial(store.client, tenant, trial)
        if len(jobs) > 1:
            raise BadRequest(f"trial {trial!r} is in several jobs ({', '.join(jobs)}); pass job=")
        job = jobs[0] if jobs else ""
    return job


def _missing(trial: str, job: str) -> NotFound:
    return NotFound(f"no trial named {trial!r}" + (f" in job {job!r}" if job else ""))


def find_trial(store: Store, tenant: str, trial: str, job: str) -> LoadedTrial:
    """The trial named `trial` (in `job` when given), or 404; 400 when the name is in several jobs."""
    job_ = job_of(store, tenant, trial, job)
    found = stored_trials(store.client, tenant, jobs=[job_], trial=trial, limit=1) if job_ else []
    if not found:
        raise _missing(trial, job)
    return found[0]


def trial_trajectory(
    transfers: TransferService | None, tenant: str, trial: str, job: str
) -> tuple[dict[str, Any] | None, str]:
    """The trial's ATIF trajectory, built as its export builds it (the query package does not import the
    importers), or None and why there is none."""
    if transfers is None:
        return None, "trajectories are not available on this server"
    try:
        return json.loads(transfers.trajectory(trial, job, tenant)), ""
    except LookupError as missing:  # no model calls, messages or tool calls to make a trajectory of
        return None, str(missing)
    except RecursionError:  # harborlight/transfer/ read trajectories and JSON values recursively
        return None, "the trial's sub-agents or JSON values nest deeper than its trajectory can be built"


def trials_router() -> APIRouter:
    router = APIRouter(tags=["trials"])

    @router.get(
        "/api/trials/{trial}",
        response_model=TrialRow,
        summary="One trial row: outcome, reward, phase timings, tokens, cost",
    )
    def get_trial(trial: str, store: FreshStore, tenant: Tenant, job: str = "") -> JSONResponse:
        job_ = job_of(store, tenant, trial, job)
        found = stored_rows(store.client, tenant, jobs=[job_], trial=trial, limit=1) if job_ else []
        if not found:
            raise _missing(trial, job)
        return JSONResponse(found[0])

    @router.get(
        "/api/trials/{trial}/behavior",
        response_model=TrialBehavior,
        summary="How the agent worked: tool calls by category, files touched, repeats, tokens per call",
    )
    def trial_behavior(
        trial: str, store: FreshStore, tenant: Tenant, transfers: Trajectories, job: str = ""
    ) -> Response:
        return trial_json(
            store.client, tenant, trial, ("behavior", job), lambda: _behavior(store, tenant, transfers, trial, job)
        )

    return router


def _behavior(store: Store, tenant: str, transfers: TransferService | None, trial: str, job: str) -> dict[str, Any]:
    """The trial's behaviour as GET /api/trials/{trial}/behavior answers it."""
    facts = find_trial(store, tenant, trial, job).facts
    got = load_calls(store.client, tenant, trial, facts.job)
    start = facts.agent_execution.start if facts.agent_execution else None
    behavior = derive_behavior(
        got.calls, got.model_calls, calls_recorded=got.calls_recorded, agent_start=start, gold_patch=got.gold_patch
    )
    trajectory, missing = trial_trajectory(transfers, tenant, trial, facts.job)
    seen = observations(trajectory)
    calls = [
        {
            "index": c.index,
            "name": c.name,
            "category": c.category.value,
            "targets": list(c.targets),
            "failed": c.failed,
            "failure": call_failure(c.failed, seen.get(c.tool_call_id or ""), c.failed_inferred).to_json(),
            "timestamp": c.timestamp,
            "step": c.step,
            "tool_call_id": c.tool_call_id,
        }
        for c in got.calls
    ]
    return behavior_row(
        facts.job,
        trial,
        behavior,
        n_calls=len(got.calls),
        n_model_calls=len(got.model_calls),
        truncated=got.truncated,
        calls=calls,
        last_agent_message=last_agent_message(trajectory, missing),
        steps=step_durations(trajectory, missing),
    )
