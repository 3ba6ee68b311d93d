"""GET /api/jobs, /api/jobs/{job}, /api/jobs/{job}/trials: job rows and trial rows, as stored (job_rows and
trial_rows, derived again first for the trials whose events changed: harborlight/summaries/)."""

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import JSONResponse

from harborlight.api.routes import cursor
from harborlight.api.routes.job_memo import job_answer
from harborlight.api.routes.params import bounded_int
from harborlight.read.statements.stored_jobs import stored_job_rows
from harborlight.read.statements.stored_trials import job_names, stored_rows, stored_trials
from harborlight.api.tenancy import tenant_of
from harborlight.summaries.refresh import derive_jobs, refresh
from harborlight.store import Store

MAX_JOBS = 200
MAX_TRIAL_PAGE = 5000


def fresh_store(request: Request) -> tuple[Store, str]:
    """The store, its trial rows fresh for the caller's tenant, and that tenant."""
    store: Store = request.app.state.store
    tenant = tenant_of(request)
    refresh(store.client, tenant)
    return store, tenant


def job_rows(store: Store, tenant: str, jobs: list[str]) -> dict[str, dict]:
    """The stored rows of those of `jobs` that have trials; a job stored without its row yet (a store from
    before job rows, not swept yet) has it derived now."""
    rows = stored_job_rows(store.client, tenant, jobs) if jobs else {}
    if missing := [j for j in jobs if j not in rows]:
        derive_jobs(store.client, tenant, missing, delete_empty=False)
        rows |= stored_job_rows(store.client, tenant, missing)
    return rows


def job_trials(request: Request, job: str) -> list:
    """Every trial of `job` for the caller, or 404."""
    store, tenant = fresh_store(request)
    trials = job_answer(store.client, tenant, job, "facts",
                        lambda: [t.facts for t in stored_trials(store.client, tenant, jobs=[job])])
    if not trials:
        raise HTTPException(404, f"no job named {job!r}")
    return trials


def jobs_router() -> APIRouter:
    router = APIRouter(tags=["jobs"])

    @router.get("/api/jobs", summary="Job rows (solve rates, counts, totals, pass@k), a page of jobs at a time")
    def list_jobs(request: Request, limit: Annotated[str | None, Query(description=f"1 to {MAX_JOBS}")] = None,
                  cursor_: Annotated[str | None, Query(alias="cursor")] = None) -> JSONResponse:
        limit_ = bounded_int("limit", limit, 50, 1, MAX_JOBS)
        store, tenant = fresh_store(request)
        after = cursor.decode(cursor_, 1) or [""]
        names = job_names(store.client, tenant, str(after[0]), limit_)
        rows = job_rows(store, tenant, names)
        items = [rows[n] for n in names if n in rows]
        next_cursor = cursor.encode([names[-1]]) if len(names) == limit_ else None
        return JSONResponse({"items": items, "next_cursor": next_cursor})

    @router.get("/api/jobs/{job}", summary="One job row: solve rates, outcome counts, totals, pass@k")
    def get_job(job: str, request: Request) -> JSONResponse:
        store, tenant = fresh_store(request)
        rows = job_rows(store, tenant, [job])
        if job not in rows:
            raise HTTPException(404, f"no job named {job!r}")
        return JSONResponse(rows[job])

    @router.get("/api/jobs/{job}/trials", summary="The job's trial rows: outcome, reward, timings, tokens, cost")
    def list_trials(job: str, request: Request,
                    limit: Annotated[str | None, Query(description=f"1 to {MAX_TRIAL_PAGE}")] = None,
                    cursor_: Annotated[str | None, Query(alias="cursor")] = None) -> JSONResponse:
        limit_ = bounded_int("limit", limit, 500, 1, MAX_TRIAL_PAGE)
        store, tenant = fresh_store(request)
        after = cursor.decode(cursor_, 1)
        page = stored_rows(store.client, tenant, jobs=[job], after=str(after[0]) if after else "", limit=limit_)
        if not page and after is None:
            raise HTTPException(404, f"no job named {job!r}")
        next_cursor = cursor.encode([page[-1]["trial"]]) if len(page) == limit_ else None
        return JSONResponse({"items": page, "next_cursor": next_cursor})

    return router
