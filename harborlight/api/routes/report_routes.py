"""GET /api/jobs/{job}/report (AgentCompass metrics.json / summary.md, or the page to share) and
/api/compare (like with like on matched tasks)."""

from dataclasses import replace
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response

from harborlight.api.deps import FreshStore, Tenant, Trajectories, TransferService
from harborlight.api.errors import BadRequest, NotFound
from harborlight.api.models import JobComparison
from harborlight.api.routes.answers import job_answer
from harborlight.api.routes.job_routes import job_trials
from harborlight.api.routes.params import bounded_int
from harborlight.api.routes.report_page import report_page
from harborlight.api.routes.time_routes import job_time
from harborlight.api.routes.trial_routes import trial_trajectory
from harborlight.read.derive.compare import Comparison, compare
from harborlight.read.derive.job_report import AGGREGATIONS, FORMATS, PRIMARIES, STRATEGIES, ReportOptions, report_text
from harborlight.read.derive.last_message import last_agent_message
from harborlight.read.derive.provenance import valued_fields_json
from harborlight.read.derive.rows_json import job_row
from harborlight.read.statements.load_duration_bins import load_duration_chart
from harborlight.read.statements.stored_trials import stored_rows, stored_trials
from harborlight.store import Store

MAX_COMPARED = 10
PAGE_FORMAT = "html"


def with_last_messages(transfers: TransferService | None, tenant: str, c: Comparison) -> Comparison:
    """Each task row's last trials' closing messages, off their trajectories (one built per task and job)."""

    def closing(job: str, trial: str):
        return last_agent_message(*trial_trajectory(transfers, tenant, trial, job))

    return replace(
        c,
        rows=tuple(replace(r, last_agent_message={j: closing(j, t) for j, t in r.last_trial.items()}) for r in c.rows),
    )


def comparison(
    store: Store, tenant: str, transfers: TransferService | None, names: list[str], last_message: bool = False
) -> dict:
    """/api/compare's document for `names` (baseline first), or 404 naming the jobs with no trial;
    `last_message`: with each task row's closing messages."""
    by_job: dict[str, list] = {n: [] for n in names}
    for t in stored_trials(store.client, tenant, jobs=names):
        by_job[t.facts.job].append(t.facts)
    missing = [n for n, trials in by_job.items() if not trials]
    if missing:
        raise NotFound(f"no job named {', '.join(map(repr, missing))}")
    compared = compare(by_job)
    return valued_fields_json(with_last_messages(transfers, tenant, compared) if last_message else compared)


def job_page(store: Store, tenant: str, transfers: TransferService | None, job: str, against: str) -> str:
    """The page to share (harborlight/api/routes/report_page.py) from the documents of the job's own routes."""
    loaded = stored_trials(store.client, tenant, jobs=[job])
    if not loaded:
        raise NotFound(f"no job named {job!r}")
    facts = [t.facts for t in loaded]
    rows = stored_rows(store.client, tenant, jobs=[job])
    return report_page(
        job_row(job, facts),
        rows,
        job_time(store.client, tenant, job, facts),
        valued_fields_json(load_duration_chart(store.client, tenant, job)),
        comparison(store, tenant, transfers, [job, against]) if against else None,
    )


def reports_router() -> APIRouter:
    router = APIRouter(tags=["reports"])

    @router.get(
        "/api/jobs/{job}/report",
        summary="AgentCompass 1.0.1-compatible metrics.json or summary.md, or each series' interval",
        response_class=Response,
        responses={
            200: {
                "description": "the report in the format asked for",
                "content": {
                    "application/json": {
                        "schema": {
                            "title": "AgentCompassReport",
                            "type": "object",
                            "description": "format=json: AgentCompass 1.0.1's metrics.json; "
                            "format=intervals: each series' interval",
                        }
                    },
                    "text/markdown": {"schema": {"type": "string"}},
                    "text/html": {"schema": {"type": "string"}},
                },
            }
        },
    )
    def job_report(
        job: str,
        store: FreshStore,
        tenant: Tenant,
        transfers: Trajectories,
        format: Annotated[str, Query(description=" or ".join((*FORMATS, PAGE_FORMAT)))] = "json",
        against: Annotated[str, Query(description="html: compare with this job on their matched tasks")] = "",
        k: Annotated[str | None, Query(description="attempts per task, 1 to 1000 (default: the most seen)")] = None,
        strategy: Annotated[str, Query(description=" or ".join(STRATEGIES))] = "avg",
        primary: Annotated[str | None, Query(description=" or ".join(PRIMARIES) + " (default: automatic)")] = None,
        aggregation: Annotated[str, Query(description=" or ".join(AGGREGATIONS))] = "micro_weighted",
    ) -> Response:
        try:
            options = ReportOptions(
                k=bounded_int("k", k, None, 1, 1000), strategy=strategy, primary=primary, aggregation=aggregation
            )
            if format not in (*FORMATS, PAGE_FORMAT):
                raise ValueError(f"format must be one of {', '.join((*FORMATS, PAGE_FORMAT))}")
            if against and format != PAGE_FORMAT:
                raise ValueError(f"against is for format={PAGE_FORMAT}")
            if against == job:
                raise ValueError("against must name another job")
        except ValueError as exc:
            raise BadRequest(str(exc)) from None
        if format == PAGE_FORMAT:
            return HTMLResponse(job_page(store, tenant, transfers, job, against))
        try:
            text = job_answer(
                store.client,
                tenant,
                job,
                ("report", options, format),
                lambda: report_text(job, job_trials(store, tenant, job), options, format),
            )
        except ValueError as exc:
            raise BadRequest(str(exc)) from None
        if format in ("json", "intervals"):
            return Response(text, media_type="application/json")
        return PlainTextResponse(text, media_type="text/markdown; charset=utf-8")

    @router.get(
        "/api/compare",
        response_model=JobComparison,
        summary="Two or more jobs on their matched tasks: rates, differences, flips",
    )
    def compare_jobs(
        store: FreshStore,
        tenant: Tenant,
        transfers: Trajectories,
        jobs: Annotated[str, Query(description="comma-separated job names, baseline first")] = "",
        last_message: Annotated[
            bool, Query(description="each task row's last attempts' closing messages (one trajectory per task and job)")
        ] = False,
    ) -> JSONResponse:
        names = [j.strip() for j in jobs.split(",") if j.strip()]
        if len(names) < 2 or len(set(names)) != len(names) or len(names) > MAX_COMPARED:
            raise BadRequest(f"jobs must name 2 to {MAX_COMPARED} different jobs, comma-separated")
        return JSONResponse(comparison(store, tenant, transfers, names, last_message))

    return router
