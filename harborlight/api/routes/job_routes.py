"""GET /api/jobs, /api/jobs/{job}, /api/jobs/{job}/trials: job rows and trial rows, as stored (job_rows and
trial_rows, derived again first for the trials whose events changed: harborlight/summaries/)."""

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse

from harborlight.api.deps import FreshStore, Tenant
from harborlight.api.errors import NotFound
from harborlight.api.models import JobPage, JobRow, TrialPage
from harborlight.api.routes import cursor
from harborlight.api.routes.answers import job_answer
from harborlight.api.routes.params import bounded_int
from harborlight.read.derive.records import TrialFacts
from harborlight.read.statements.stored_jobs import stored_job_rows
from harborlight.read.statements.stored_trials import job_names, stored_rows, stored_trials
from harborlight.store import Store
from harborlight.summaries.refresh import derive_jobs

MAX_JOBS = 200
MAX_TRIAL_PAGE = 5000


def job_rows(store: Store, tenant: str, jobs: list[str]) -> dict[str, dict]:
    """The stored rows of those of `jobs` that have trials; a job stored without its row yet (a store from
    before job rows, not swept yet) has it derived now."""
    rows = stored_job_rows(store.client, tenant, jobs) if jobs else {}
    if missing := [j for j in jobs if j not in rows]:
        derive_jobs(store.client, tenant, missing, delete_empty=False)
        rows |= stored_job_rows(store.client, tenant, missing)
    return rows


def job_trials(store: Store, tenant: str, job: str) -> list[TrialFacts]:
    """Every trial of `job` for the caller (its rows fresh: FreshStore), or 404."""
    trials = job_answer(
        store.client, tenant, job, "facts", lambda: [t.facts for t in stored_trials(store.client, tenant, jobs=[job])]
    )
    if not trials:
        raise NotFound(f"no job named {job!r}")
    return trials


def jobs_router() -> APIRouter:
    router = APIRouter(tags=["jobs"])

    @router.get(
        "/api/jobs",
        response_model=JobPage,
        summary="Job rows (solve rates, counts, totals, pass@k), a page of jobs at a time",
    )
    def list_jobs(
        store: FreshStore,
        tenant: Tenant,
        limit: Annotated[str | None, Query(description=f"1 to {MAX_JOBS}")] = None,
        cursor_: Annotated[str | None, Query(alias="cursor")] = None,
    ) -> JSONResponse:
        limit_ = bounded_int("limit", limit, 50, 1, MAX_JOBS)
        after = cursor.decode(cursor_, 1) or [""]
        names = job_names(store.client, tenant, str(after[0]), limit_)
        rows = job_rows(store, tenant, names)
        items = [rows[n] for n in names if n in rows]
        next_cursor = cursor.encode([names[-1]]) if len(names) == limit_ else None
        return JSONResponse({"items": items, "next_cursor": next_cursor})

    @router.get(
        "/api/jobs/{job}", response_model=JobRow, summary="One job row: solve rates, outcome counts, totals, pass@k"
    )
    def get_job(job: str, store: FreshStore, tenant: Tenant) -> JSONResponse:
        rows = job_rows(store, tenant, [job])
        if job not in rows:
            raise NotFound(f"no job named {job!r}")
        return JSONResponse(rows[job])

    @router.get(
        "/api/jobs/{job}/trials",
        response_model=TrialPage,
        summary="The job's trial rows: outcome, reward, timings, tokens, cost",
    )
    def list_trials(
        job: str,
        store: FreshStore,
        tenant: Tenant,
        limit: Annotated[str | None, Query(description=f"1 to {MAX_TRIAL_PAGE}")] = None,
        cursor_: Annotated[str | None, Query(alias="cursor")] = None,
    ) -> JSONResponse:
        limit_ = bounded_int("limit", limit, 500, 1, MAX_TRIAL_PAGE)
        after = cursor.decode(cursor_, 1)
        page = stored_rows(store.client, tenant, jobs=[job], after=str(after[0]) if after else "", limit=limit_)
        if not page and after is None:
            raise NotFound(f"no job named {job!r}")
        next_cursor = cursor.encode([page[-1]["trial"]]) if len(page) == limit_ else None
        return JSONResponse({"items": page, "next_cursor": next_cursor})

    return router
