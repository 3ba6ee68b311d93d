"""OTLP/HTTP: POST /v1/traces, /v1/logs, /v1/metrics with protobuf or JSON bodies, gzip or not, and the
MLflow experiment routes its MLflow-speaking clients call first (harborlight/ingest/mlflow.py)."""

from fastapi import APIRouter, Request, Response
from google.protobuf import json_format
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2

from harborlight.ingest import mlflow
from harborlight.ingest.answers import (
    ExportLogsServiceResponse,
    ExportMetricsServiceResponse,
    ExportTraceServiceResponse,
    RpcStatus,
)
from harborlight.ingest.auth import Authenticator, Unauthorized
from harborlight.ingest.errors import grpc_code, http_status
from harborlight.ingest.otlp_json import json_to_protobuf
from harborlight.ingest.receiver import Receiver
from harborlight.ingest.request_body import inflate, read_limited
from harborlight.ingest.signals import SIGNALS, SignalSpec, response
from harborlight.store import Signal
from harborlight.write_errors import IngestError, InvalidRequest, Unauthenticated

PROTOBUF = "application/x-protobuf"
DUPLICATE_HEADER = "X-Harborlight-Duplicate"  # the request was stored before: acknowledged, not stored again
JSON = "application/json"
# what OpenAPI names for each route's answers: OTLP/JSON to a JSON request, protobuf to a protobuf one
_ANSWERS = {
    Signal.traces: ExportTraceServiceResponse,
    Signal.logs: ExportLogsServiceResponse,
    Signal.metrics: ExportMetricsServiceResponse,
}
_BINARY = {PROTOBUF: {"schema": {"type": "string", "format": "binary"}}}
_REFUSALS = {
    400: "an invalid request",
    401: "no valid token",
    413: "a body over the limit",
    429: "the log is full for now: retry after Retry-After",
    500: "the receiver failed",
    503: "the store or the disk is unavailable: retry after Retry-After",
}
_DOCUMENTED: dict[int | str, dict[str, object]] = {
    200: {"description": "taken (with partialSuccess: in part); refusals are a google.rpc.Status", "content": _BINARY},
    **{status: {"model": RpcStatus, "description": why, "content": _BINARY} for status, why in _REFUSALS.items()},
}


def _reply(message: Message, as_json: bool, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    if as_json:
        body = json_format.MessageToJson(message, indent=None)
        return Response(body, status_code=status, media_type=JSON, headers=headers)
    return Response(message.SerializeToString(), status_code=status, media_type=PROTOBUF, headers=headers)


def otlp_router(receiver: Receiver, authenticator: Authenticator, max_body_bytes: int) -> APIRouter:
    router = APIRouter(tags=["OTLP/HTTP"])

    def add(spec: SignalSpec) -> None:
        async def export(request: Request) -> Response:
            content_type = request.headers.get("content-type", PROTOBUF).split(";")[0].strip().lower()
            as_json = content_type == JSON
            try:
                try:
                    caller = authenticator.authenticate(request.headers.get("authorization"))
                except Unauthorized as exc:
                    raise Unauthenticated(str(exc)) from exc
                if content_type not in (PROTOBUF, JSON):
                    raise InvalidRequest(f"unsupported Content-Type {content_type!r}; use {PROTOBUF} or {JSON}")
                body = await read_limited(request.headers.get("content-length"), request.stream(), max_body_bytes)
                body = inflate(body, request.headers.get("content-encoding", ""), max_body_bytes)
                if as_json:
                    body = json_to_protobuf(spec, body)
                if spec.signal is Signal.traces and (experiment := request.headers.get(mlflow.EXPERIMENT_HEADER)):
                    body = mlflow.name_job(body, mlflow.job_of(experiment))
                result = await receiver.export(spec.signal, body, caller)
            except IngestError as exc:
                status = status_pb2.Status(code=grpc_code(exc).value[0], message=str(exc))
                if exc.retry_after:  # as the gRPC answer carries it (harborlight/ingest/grpc_server.py retry_details)
                    info = error_details_pb2.RetryInfo()
                    info.retry_delay.FromSeconds(exc.retry_after)
                    status.details.add().Pack(info)
                headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after else {}
                if isinstance(exc, Unauthenticated):
                    headers["WWW-Authenticate"] = "Bearer"
                return _reply(status, as_json, http_status(exc), headers)
            # An importer says how much was new; OTLP's answer has no field for a request stored before.
            duplicate = {DUPLICATE_HEADER: "true"} if result.duplicate else None
            return _reply(response(spec, result.rejected, result.message), as_json, headers=duplicate)

        router.add_api_route(
            spec.http_path,
            export,
            methods=["POST"],
            summary=f"OTLP/HTTP {spec.signal} export",
            response_model=_ANSWERS[spec.signal],
            responses=_DOCUMENTED,
        )

    for spec in SIGNALS.values():
        add(spec)
    router.include_router(mlflow.mlflow_router(authenticator))  # what MLflow's OTLP clients ask first
    return router
