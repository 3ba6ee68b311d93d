"""OTLP/HTTP: POST /v1/traces, /v1/logs, /v1/metrics with protobuf or JSON bodies, gzip or not."""

import zlib

from fastapi import APIRouter, Request, Response
from google.protobuf import json_format
from google.rpc import status_pb2

from collector.auth import Authenticator, Unauthorized
from collector.errors import IngestError, InvalidRequest, TooLarge, Unauthenticated
from collector.otlp_json import json_to_protobuf
from collector.receiver import Receiver
from collector.signals import SIGNALS, SignalSpec, response

PROTOBUF = "application/x-protobuf"
JSON = "application/json"


def _decompress(body: bytes, encoding: str, max_bytes: int) -> bytes:
    if encoding in ("", "identity"):
        return body
    if encoding not in ("gzip", "deflate"):
        raise InvalidRequest(f"unsupported Content-Encoding {encoding!r}; use gzip or none")
    inflater = zlib.decompressobj(wbits=47 if encoding == "gzip" else 15)
    try:
        out = inflater.decompress(body, max_bytes + 1)
    except zlib.error as exc:
        raise InvalidRequest(f"body is not valid {encoding}: {exc}") from exc
    if len(out) > max_bytes:
        raise TooLarge(f"decompressed body exceeds the {max_bytes}-byte limit")
    return out


def _reply(message, as_json: bool, status: int = 200, headers: dict | None = None) -> Response:
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
                declared = request.headers.get("content-length")
                if declared and declared.isdigit() and int(declared) > max_body_bytes:
                    raise TooLarge(f"body of {declared} bytes exceeds the {max_body_bytes}-byte limit")
                body = await _read_limited(request, max_body_bytes)
                body = _decompress(body, request.headers.get("content-encoding", "").lower(), max_body_bytes)
                if as_json:
                    body = json_to_protobuf(spec, body)
                result = await receiver.export(spec.signal, body, caller)
            except IngestError as exc:
                status = status_pb2.Status(code=exc.grpc_code.value[0], message=str(exc))
                headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after else {}
                if isinstance(exc, Unauthenticated):
                    headers["WWW-Authenticate"] = "Bearer"
                return _reply(status, as_json, exc.http_status, headers)
            return _reply(response(spec, result.rejected, result.message), as_json)

        router.add_api_route(spec.http_path, export, methods=["POST"], summary=f"OTLP/HTTP {spec.signal} export")

    for spec in SIGNALS.values():
        add(spec)
    return router


async def _read_limited(request: Request, max_bytes: int) -> bytes:
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_bytes:
            raise TooLarge(f"body exceeds the {max_bytes}-byte limit")
        chunks.append(chunk)
    return b"".join(chunks)
