"""The one place where failures become wire answers (gRPC status codes, HTTP statuses)."""

import grpc


class IngestError(Exception):
    grpc_code = grpc.StatusCode.INTERNAL
    http_status = 500
    retry_after: int | None = None


class InvalidRequest(IngestError):
    """The request as a whole cannot be decoded; retrying it cannot help."""

    grpc_code = grpc.StatusCode.INVALID_ARGUMENT
    http_status = 400


class Unauthenticated(IngestError):
    grpc_code = grpc.StatusCode.UNAUTHENTICATED
    http_status = 401


class QueueFull(IngestError):
    """The writer's bounded queue is full: the exporter should back off and retry."""

    grpc_code = grpc.StatusCode.RESOURCE_EXHAUSTED
    http_status = 429
    retry_after = 1


class LogFull(QueueFull):
    """The write-ahead log holds as much as it may (--wal-max-mib) until the store takes some of it."""


class StoreDown(IngestError):
    """The store failed to commit: nothing of the request was acknowledged, a retry is safe."""

    grpc_code = grpc.StatusCode.UNAVAILABLE
    http_status = 503
    retry_after = 2


class TooLarge(IngestError):
    """Over a size limit: the same request would be refused again, so not retryable."""

    grpc_code = grpc.StatusCode.INVALID_ARGUMENT
    http_status = 413


class MemoryHigh(IngestError):
    """The process is near its memory limit: refused before anything is accepted, retry later."""

    grpc_code = grpc.StatusCode.UNAVAILABLE
    http_status = 503
    retry_after = 1


def brief(exc: Exception, limit: int = 300) -> str:
    """The first line of a store error: clickhouse-connect quotes the whole request URL otherwise."""
    text = str(exc).strip()
    text = text.splitlines()[0] if text else type(exc).__name__
    return text if len(text) <= limit else text[:limit] + "..."
