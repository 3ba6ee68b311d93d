"""The one place where the write path's failures (harborlight/write_errors.py) become wire answers: each
failure's gRPC status code and HTTP status, a subclass answering as its nearest mapped base."""

import grpc

from harborlight.write_errors import (
    IngestError,
    InvalidRequest,
    MemoryHigh,
    QueueFull,
    StoreDown,
    TooLarge,
    Unauthenticated,
)

_WIRE: dict[type[IngestError], tuple[grpc.StatusCode, int]] = {
    IngestError: (grpc.StatusCode.INTERNAL, 500),
    InvalidRequest: (grpc.StatusCode.INVALID_ARGUMENT, 400),
    Unauthenticated: (grpc.StatusCode.UNAUTHENTICATED, 401),
    QueueFull: (grpc.StatusCode.RESOURCE_EXHAUSTED, 429),  # LogFull too
    StoreDown: (grpc.StatusCode.UNAVAILABLE, 503),  # LogUnwritable too
    TooLarge: (grpc.StatusCode.INVALID_ARGUMENT, 413),
    MemoryHigh: (grpc.StatusCode.UNAVAILABLE, 503),
}


def _wire(exc: IngestError) -> tuple[grpc.StatusCode, int]:
    return next(_WIRE[c] for c in type(exc).__mro__ if c in _WIRE)


def grpc_code(exc: IngestError) -> grpc.StatusCode:
    """The gRPC status code `exc` answers with."""
    return _wire(exc)[0]


def http_status(exc: IngestError) -> int:
    """The HTTP status `exc` answers with."""
    return _wire(exc)[1]
