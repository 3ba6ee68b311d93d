"""POST /api/import/otlp (an OpenTelemetry file in), GET /api/jobs/{job}/export (a Harbor job
directory out, as .tar.gz) and GET /api/trials/{trial}/trajectory (one trial's ATIF trajectory). The
operations themselves live in harborlight/transfer/; the composition root puts them on app.state.transfers, so
the query package does not import the importers."""

import re
from urllib.parse import quote

from fastapi import APIRouter, HTTPException, Query, Request, Response

from harborlight.api.tenancy import tenant_of


def _transfers(request: Request):
    transfers = getattr(request.app.state, "transfers", None)
    if transfers is None:
        raise HTTPException(503, "import and export are not available on this server")
    return transfers


def _refused(exc: ValueError) -> HTTPException:
    return HTTPException(404 if isinstance(exc, LookupError) else getattr(exc, "http_status", 400), str(exc))


def attachment(filename: str) -> str:
    """A Content-Disposition for a download named `filename` (RFC 6266): an ASCII fallback in `filename`
    (every character but letters, digits, `.`, `-`, `_` and space becomes `_`, so a quote, `;`, CR or LF
    cannot end the parameter) and the exact name, UTF-8 and percent-encoded (RFC 8187), in `filename*`."""
    fallback = re.sub(r"[^A-Za-z0-9._ -]", "_", filename).strip(" ") or "download"
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(filename, safe='')}"


def transfer_router() -> APIRouter:
    router = APIRouter(tags=["import and export"])

    @router.post("/api/import/otlp", summary="Store an OpenTelemetry file: Collector file exporter JSON lines, "
                 "an OTLP/JSON document or OTLP protobuf (gzip or not), as the request body")
    async def import_otlp(request: Request, name: str = Query("upload", description="the file's name, for messages")):
        transfers = _transfers(request)
        body = await request.app.state.read_body(request)  # within --max-request-bytes, sent or inflated
        try:
            return await transfers.import_otlp(name, body, tenant_of(request))
        except ValueError as exc:
            raise _refused(exc) from None

    @router.get("/api/jobs/{job}/export", response_class=Response,
                summary="The job as a Harbor job directory, in a .tar.gz (running trials without result.json "
                        "unless snapshot=true)")
    def export_job(job: str, request: Request, snapshot: bool = False,
                   jobs_dir: str = Query("jobs", description="where the job directory will live (trial_uri)")):
        try:
            data = _transfers(request).export_tarball(job, jobs_dir, tenant_of(request), snapshot)
        except ValueError as exc:
            raise _refused(exc) from None
        except RecursionError:  # harborlight/transfer/ read trajectories and JSON values recursively
            raise HTTPException(422, f"job {job!r}: a trial's sub-agents or JSON values nest deeper than an "
                                     "export can be built") from None
        return Response(data, media_type="application/gzip",
                        headers={"Content-Disposition": attachment(f"{job}.tar.gz")})

    @router.get("/api/trials/{trial}/trajectory",
                summary="The trial's ATIF trajectory (the export's agent/trajectory.json), built from its telemetry")
    def trial_trajectory(trial: str, request: Request, job: str = "") -> Response:
        try:
            text = _transfers(request).trajectory(trial, job, tenant_of(request))
        except ValueError as exc:
            raise _refused(exc) from None
        except RecursionError:  # harborlight/transfer/ read trajectories and JSON values recursively
            raise HTTPException(422, f"trial {trial!r}: its sub-agents or JSON values nest deeper than a "
                                     "trajectory can be built") from None
        return Response(text, media_type="application/json")

    return router
