"""OTLP/gRPC: TraceService, LogsService and MetricsService Export on one grpc.aio server."""

import grpc
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2

from harborlight.ingest.auth import Authenticator, Unauthorized
from harborlight.ingest.errors import grpc_code
from harborlight.ingest.receiver import Receiver
from harborlight.ingest.signals import SIGNALS, SignalSpec, response
from harborlight.write_errors import IngestError


def _handler(receiver: Receiver, authenticator: Authenticator, spec: SignalSpec) -> grpc.RpcMethodHandler:
    async def export(body: bytes, context: grpc.aio.ServicerContext) -> Message:
        metadata = dict(context.invocation_metadata() or ())
        try:
            caller = authenticator.authenticate(metadata.get("authorization"))
        except Unauthorized as exc:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, str(exc))
        try:
            result = await receiver.export(spec.signal, body, caller)
        except IngestError as exc:
            # Status details travel as a header (16 KiB hard limit): a longer message, such as a store error
            # quoting a whole request URL, would turn the answer into RESOURCE_EXHAUSTED "Stream removed".
            await context.abort(grpc_code(exc), _brief(str(exc)), trailing_metadata=retry_details(exc))
        return response(spec, result.rejected, result.message)

    # The request stays raw bytes: validation and the engine read them, no Python object per span.
    return grpc.unary_unary_rpc_method_handler(
        export, request_deserializer=None, response_serializer=lambda m: m.SerializeToString()
    )


def retry_details(exc: IngestError) -> tuple[tuple[str, bytes], ...]:
    """A retryable refusal's google.rpc.RetryInfo, in the status details (`grpc-status-details-bin`): OTLP
    exporters retry RESOURCE_EXHAUSTED only when it is there, and wait as long as it says."""
    if not exc.retry_after:
        return ()
    info = error_details_pb2.RetryInfo()
    info.retry_delay.FromSeconds(exc.retry_after)
    status = status_pb2.Status(code=grpc_code(exc).value[0], message=_brief(str(exc)))
    status.details.add().Pack(info)
    return (("grpc-status-details-bin", status.SerializeToString()),)


def _brief(message: str, limit: int = 1000) -> str:
    return message if len(message) <= limit else message[: limit - 3] + "..."


class _Handlers(grpc.GenericRpcHandler):
    def __init__(self, receiver: Receiver, authenticator: Authenticator) -> None:
        self._by_method = {spec.grpc_method: _handler(receiver, authenticator, spec) for spec in SIGNALS.values()}

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        return self._by_method.get(handler_call_details.method)


def build_grpc_server(
    receiver: Receiver, authenticator: Authenticator, host: str, port: int, max_message_bytes: int
) -> tuple[grpc.aio.Server, int]:
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", max_message_bytes),
            ("grpc.so_reuseport", 0),
        ]
    )
    server.add_generic_rpc_handlers((_Handlers(receiver, authenticator),))
    bound = server.add_insecure_port(f"{host}:{port}")
    if bound == 0:
        raise OSError(f"cannot listen for OTLP/gRPC on {host}:{port}")
    return server, bound
