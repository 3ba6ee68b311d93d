"""The part of MLflow's tracking API that OTLP exporters speaking to MLflow call before they post
spans (Harbor's `harbor traces export --format otel --endpoint URL`, its harbor-atif2otel uploader):
`POST /api/2.0/mlflow/experiments/search` and `.../create`, then `POST /v1/traces` with the header
`x-mlflow-experiment-id`.

In harborlight an experiment is a job: every name exists, its id is the name (URL-encoded, so it fits
a header), and the spans posted under it that name no job of their own take it as `harbor.job.name`.
"""

import json
import re
from typing import Any
from urllib.parse import quote, unquote

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

from harborlight.ingest.answers import MlflowCreateAnswer, MlflowError, MlflowSearchAnswer
from harborlight.ingest.auth import Authenticator, Unauthorized

EXPERIMENT_HEADER = "x-mlflow-experiment-id"
JOB_NAME = "harbor.job.name"
# The filter MLflow clients send to find an experiment by name: name = 'it''s' (quotes doubled).
_BY_NAME = re.compile(r"^\s*(?:attributes\.)?name\s*=\s*'((?:[^']|'')*)'\s*$")


def experiment_id(name: str) -> str:
    return quote(name, safe="")


def job_of(experiment: str) -> str:
    return unquote(experiment)


def name_job(body: bytes, job: str) -> bytes:
    """An ExportTraceServiceRequest whose resources without a harbor.job.name get `job`. A body that
    does not parse strictly goes on as it is: validation reports or salvages it (harborlight/ingest/validate.py)."""
    try:
        request = ExportTraceServiceRequest.FromString(body)
    except DecodeError:
        return body
    for resource_spans in request.resource_spans:
        attributes = resource_spans.resource.attributes
        if not any(kv.key == JOB_NAME for kv in attributes):
            attributes.append(KeyValue(key=JOB_NAME, value=AnyValue(string_value=job)))
    serialized: bytes = request.SerializeToString()
    return serialized


def _error(status: int, code: str, message: str) -> JSONResponse:
    """MLflow's error shape, so its clients print the message."""
    return JSONResponse({"error_code": code, "message": message}, status_code=status)


def _experiment(name: str) -> dict[str, str]:
    return {"experiment_id": experiment_id(name), "name": name, "lifecycle_stage": "active"}


async def _body(request: Request) -> dict[str, Any] | JSONResponse:
    try:
        body = json.loads(await request.body() or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError):
        return _error(400, "MALFORMED_REQUEST", "the body must be a JSON object")
    except RecursionError:
        return _error(400, "MALFORMED_REQUEST", "the body nests deeper than a JSON reader follows")
    return body if isinstance(body, dict) else _error(400, "MALFORMED_REQUEST", "the body must be a JSON object")


def mlflow_router(authenticator: Authenticator) -> APIRouter:
    router = APIRouter(tags=["MLflow experiments (for OTLP exporters that speak MLflow)"])

    def refused(request: Request) -> JSONResponse | None:
        try:
            authenticator.authenticate(request.headers.get("authorization"))
        except Unauthorized as exc:
            return _error(401, "UNAUTHENTICATED", str(exc))
        return None

    refusals: dict[int | str, dict[str, object]] = {
        400: {"model": MlflowError, "description": "a body or filter it cannot read"},
        401: {"model": MlflowError, "description": "no valid token"},
    }

    @router.post(
        "/api/2.0/mlflow/experiments/search",
        summary="The experiment of a job, by its name",
        response_model=MlflowSearchAnswer,
        responses=refusals,
    )
    async def search(request: Request) -> JSONResponse:
        if (answer := refused(request)) is not None:
            return answer
        body = await _body(request)
        if isinstance(body, JSONResponse):
            return body
        match = _BY_NAME.match(str(body.get("filter") or ""))
        if match is None:
            return _error(
                400,
                "INVALID_PARAMETER_VALUE",
                "harborlight finds experiments by name only: filter \"name = '<job>'\" (an experiment is a job)",
            )
        return JSONResponse({"experiments": [_experiment(match.group(1).replace("''", "'"))]})

    @router.post(
        "/api/2.0/mlflow/experiments/create",
        summary="The experiment of a job (every job has one)",
        response_model=MlflowCreateAnswer,
        responses=refusals,
    )
    async def create(request: Request) -> JSONResponse:
        if (answer := refused(request)) is not None:
            return answer
        body = await _body(request)
        if isinstance(body, JSONResponse):
            return body
        name = body.get("name")
        if not isinstance(name, str) or not name.strip():
            return _error(400, "INVALID_PARAMETER_VALUE", "create needs a non-empty 'name' (the job's)")
        return JSONResponse({"experiment_id": experiment_id(name)})

    return router
