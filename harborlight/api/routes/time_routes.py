"""GET /api/trials/{trial}/time and /api/jobs/{job}/time: where the agent phase went (model calls,
tools, gaps), the longest calls and the critical path of a trial; the same split summed over a job.
GET .../durations: the span-duration charts of a trial or a job (harborlight/read/derive/duration_bins.py)."""

from collections.abc import Sequence
from typing import Any

from clickhouse_connect.driver.client import Client
from fastapi import APIRouter
from fastapi.responses import Response

from harborlight.api.deps import FreshStore, Tenant
from harborlight.api.models import JobDurations, JobTime, TrialDurations, TrialTime
from harborlight.api.routes.answers import job_json, trial_json
from harborlight.api.routes.job_routes import job_trials
from harborlight.api.routes.trace_routes import trial_events
from harborlight.api.routes.trial_routes import find_trial
from harborlight.read.derive.critical_path import derive_critical_path
from harborlight.read.derive.provenance import valued_fields_json
from harborlight.read.derive.records import TrialFacts
from harborlight.read.derive.time_split import (
    agent_window,
    clip_bounds,
    derive_time_split,
    longest_calls,
    sum_time_splits,
)
from harborlight.read.statements.load_duration_bins import load_duration_chart
from harborlight.read.statements.load_time_split import agent_roots, call_totals
from harborlight.read.statements.trace_tree import build_tree
from harborlight.store import Store


def job_time(client: Client, tenant: str, job: str, trials: Sequence[TrialFacts]) -> dict[str, Any]:
    """The job's finished trials' time splits summed (a running trial's split is partial)."""
    finished = [t for t in trials if not t.is_running]
    calls = call_totals(client, tenant, job, {t.trial: clip_bounds(t.agent_execution) for t in finished})
    splits = [derive_time_split(calls.get(t.trial), t.agent_execution) for t in finished]
    return {"job": job, **valued_fields_json(sum_time_splits(splits))}


def time_router() -> APIRouter:
    router = APIRouter(tags=["trials"])

    @router.get(
        "/api/trials/{trial}/time",
        response_model=TrialTime,
        summary="Where the agent phase went: model-call, tool and gap time, longest calls, critical path",
    )
    def trial_time(trial: str, store: FreshStore, tenant: Tenant, job: str = "") -> Response:
        return trial_json(store.client, tenant, trial, ("time", job), lambda: _trial_time(store, tenant, trial, job))

    @router.get(
        "/api/jobs/{job}/time",
        response_model=JobTime,
        summary="The job's finished trials' time splits summed, and per model",
    )
    def get_job_time(job: str, store: FreshStore, tenant: Tenant) -> Response:
        return job_json(
            store.client,
            tenant,
            job,
            "time",
            lambda: job_time(store.client, tenant, job, job_trials(store, tenant, job)),
        )

    @router.get(
        "/api/trials/{trial}/durations",
        response_model=TrialDurations,
        summary="Span durations on log-spaced bins, by count and by summed span time, split by kind",
    )
    def trial_durations(trial: str, store: FreshStore, tenant: Tenant, job: str = "") -> Response:
        return trial_json(
            store.client, tenant, trial, ("durations", job), lambda: _trial_durations(store, tenant, trial, job)
        )

    @router.get(
        "/api/jobs/{job}/durations",
        response_model=JobDurations,
        summary="The job's span durations on log-spaced bins, split by kind",
    )
    def job_durations(job: str, store: FreshStore, tenant: Tenant) -> Response:
        job_trials(store, tenant, job)  # 404 for a job the caller has no trial of
        return job_json(
            store.client,
            tenant,
            job,
            "durations",
            lambda: {"job": job, **valued_fields_json(load_duration_chart(store.client, tenant, job))},
        )

    return router


def _trial_time(store: Store, tenant: str, trial: str, job: str) -> dict[str, Any]:
    """The trial's time split as GET /api/trials/{trial}/time answers it."""
    facts = find_trial(store, tenant, trial, job).facts
    calls = call_totals(store.client, tenant, facts.job, {trial: clip_bounds(facts.agent_execution)}, trial).get(trial)
    window, _ = agent_window(facts.agent_execution, calls)
    events, _ = trial_events(store.client, tenant, trial, facts.job)
    roots = agent_roots(build_tree(events).roots)
    inferred = any(e.timing == "inferred" for e in events)
    return {
        "job": facts.job,
        "trial": trial,
        **valued_fields_json(derive_time_split(calls, facts.agent_execution)),
        "longest_calls": longest_calls(roots, window[0] if window else None).to_json(),
        "critical_path": derive_critical_path(roots, window, inferred).to_json(),
    }


def _trial_durations(store: Store, tenant: str, trial: str, job: str) -> dict[str, Any]:
    """The trial's duration chart as GET /api/trials/{trial}/durations answers it."""
    facts = find_trial(store, tenant, trial, job).facts
    chart = load_duration_chart(store.client, tenant, facts.job, trial)
    return {"job": facts.job, "trial": trial, **valued_fields_json(chart)}
