"""POST /api/import/otlp (an OpenTelemetry file in), GET /api/jobs/{job}/export (a Harbor job
directory out, as .tar.gz) and GET /api/trials/{trial}/trajectory (one trial's ATIF trajectory). The
operations themselves live in harborlight/transfer/; the composition root hands them to build_api (deps.Transfers), so
the query package does not import the importers."""

import re
from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Query, Response

from harborlight.api.deps import Body, Tenant, Transfers
from harborlight.api.errors import TooDeep, refused
from harborlight.api.models import TRAJECTORY_SCHEMA, ImportTally


def attachment(filename: str) -> str:
    """A Content-Disposition for a download named `filename` (RFC 6266): an ASCII fallback in `filename`
    (every character but letters, digits, `.`, `-`, `_` and space becomes `_`, so a quote, `;`, CR or LF
    cannot end the parameter) and the exact name, UTF-8 and percent-encoded (RFC 8187), in `filename*`."""
    fallback = re.sub(r"[^A-Za-z0-9._ -]", "_", filename).strip(" ") or "download"
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(filename, safe='')}"


def transfer_router() -> APIRouter:
    router = APIRouter(tags=["import and export"])

    @router.post(
        "/api/import/otlp",
        response_model=ImportTally,
        summary="Store an OpenTelemetry file: Collector file exporter JSON lines, "
        "an OTLP/JSON document or OTLP protobuf (gzip or not), as the request body",
    )
    async def import_otlp(
        transfers: Transfers,
        tenant: Tenant,
        body: Body,  # within --max-request-bytes
        name: Annotated[str, Query(description="the file's name, for messages")] = "upload",
    ) -> dict:
        try:
            return await transfers.import_otlp(name, body, tenant)
        except ValueError as exc:
            raise refused(exc) from None

    @router.get(
        "/api/jobs/{job}/export",
        response_class=Response,
        responses={200: {"content": {"application/gzip": {}}, "description": "the job directory, tar.gz"}},
        summary="The job as a Harbor job directory, in a .tar.gz (running trials without result.json "
        "unless snapshot=true)",
    )
    def export_job(
        job: str,
        transfers: Transfers,
        tenant: Tenant,
        snapshot: bool = False,
        jobs_dir: Annotated[str, Query(description="where the job directory will live (trial_uri)")] = "jobs",
    ) -> Response:
        try:
            data = transfers.export_tarball(job, jobs_dir, tenant, snapshot)
        except ValueError as exc:
            raise refused(exc) from None
        except RecursionError:  # harborlight/transfer/ read trajectories and JSON values recursively
            raise TooDeep(
                f"job {job!r}: a trial's sub-agents or JSON values nest deeper than an export can be built"
            ) from None
        return Response(
            data, media_type="application/gzip", headers={"Content-Disposition": attachment(f"{job}.tar.gz")}
        )

    @router.get(
        "/api/trials/{trial}/trajectory",
        response_class=Response,
        responses={
            200: {
                "content": {"application/json": {"schema": TRAJECTORY_SCHEMA}},
                "description": "an ATIF trajectory (schema_version ATIF-v1.x)",
            }
        },
        summary="The trial's ATIF trajectory (the export's agent/trajectory.json), built from its telemetry",
    )
    def trial_trajectory(trial: str, transfers: Transfers, tenant: Tenant, job: str = "") -> Response:
        try:
            text = transfers.trajectory(trial, job, tenant)
        except ValueError as exc:
            raise refused(exc) from None
        except RecursionError:  # harborlight/transfer/ read trajectories and JSON values recursively
            raise TooDeep(
                f"trial {trial!r}: its sub-agents or JSON values nest deeper than a trajectory can be built"
            ) from None
        return Response(text, media_type="application/json")

    return router
