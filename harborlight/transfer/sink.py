"""Where imported telemetry goes: the in-process receiver (the live ingest path, on a local store) or
a running harborlight's OTLP/HTTP endpoint. Both validate every item and acknowledge after the
commit; a full queue is waited out, anything else is a TransferError."""

import asyncio
from dataclasses import dataclass
from typing import Protocol

import httpx

from harborlight.ingest.auth import Caller
from harborlight.ingest.http_routes import DUPLICATE_HEADER
from harborlight.ingest.receiver import Receiver
from harborlight.ingest.signals import SIGNALS
from harborlight.store import Signal
from harborlight.transfer.errors import TransferError
from harborlight.transfer.reach import cannot_reach
from harborlight.write_errors import IngestError, QueueFull

RETRIES = 50


@dataclass(frozen=True)
class Sent:
    accepted: int
    rejected: int
    message: str  # the rejected items' reasons
    duplicate: bool = False  # already stored: acknowledged without storing twice


class Sink(Protocol):
    async def send(self, signal: Signal, body: bytes) -> Sent: ...


class ReceiverSink:
    """The live path in this process: validate, group-commit, acknowledge after the commit."""

    def __init__(self, receiver: Receiver, tenant: str | None = None) -> None:
        self._receiver = receiver
        self._caller = Caller(tenant=tenant or None)

    async def send(self, signal: Signal, body: bytes) -> Sent:
        for attempt in range(RETRIES):
            try:
                result = await self._receiver.export(signal, body, self._caller)
                return Sent(result.accepted, result.rejected, result.message, result.duplicate)
            except QueueFull:
                await asyncio.sleep(min(0.05 * (attempt + 1), 1.0))
            except IngestError as exc:
                raise TransferError(str(exc)) from None
        raise TransferError("the store stayed busy; try again")


class HttpSink:
    """A running server, over OTLP/HTTP protobuf."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self._client = client

    async def send(self, signal: Signal, body: bytes) -> Sent:
        spec = SIGNALS[signal]
        for _ in range(RETRIES):
            try:
                reply = await self._client.post(
                    spec.http_path, content=body, headers={"content-type": "application/x-protobuf"}
                )
            except httpx.HTTPError as exc:
                raise TransferError(cannot_reach(str(self._client.base_url).rstrip("/"), exc)) from None
            if reply.status_code in (429, 503):
                await asyncio.sleep(min(float(reply.headers.get("retry-after", "1")), 5.0))
                continue
            if reply.status_code != 200:
                raise TransferError(f"the server refused the data ({reply.status_code}): {_status_message(reply)}")
            answer = spec.response.FromString(reply.content)
            rejected = getattr(answer.partial_success, spec.rejected_field)
            return Sent(
                _count(signal, body) - rejected,
                rejected,
                answer.partial_success.error_message,
                reply.headers.get(DUPLICATE_HEADER) == "true",
            )
        raise TransferError("the server stayed busy; try again")


def _status_message(reply: httpx.Response) -> str:
    from google.rpc import status_pb2

    try:
        return status_pb2.Status.FromString(reply.content).message or reply.text[:200]
    except Exception:
        return reply.text[:200]


def _count(signal: Signal, body: bytes) -> int:
    request = SIGNALS[signal].request.FromString(body)
    if signal is Signal.traces:
        return sum(len(ss.spans) for rs in request.resource_spans for ss in rs.scope_spans)
    if signal is Signal.logs:
        return sum(len(sl.log_records) for rl in request.resource_logs for sl in rl.scope_logs)
    return sum(
        len(getattr(m, m.WhichOneof("data")).data_points)
        for rm in request.resource_metrics
        for sm in rm.scope_metrics
        for m in sm.metrics
        if m.WhichOneof("data")
    )
