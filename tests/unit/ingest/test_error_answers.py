"""Each write-path failure's wire answer: the gRPC code and HTTP status ingest maps it to, and whether it
says when to retry. A subclass answers as its nearest mapped base (the log's refusals as the queue's and the
store's)."""

import grpc
import pytest

from harborlight.ingest.errors import grpc_code, http_status
from harborlight.write_errors import (
    IngestError,
    InvalidRequest,
    LogFull,
    LogUnwritable,
    MemoryHigh,
    QueueFull,
    StoreDown,
    TooLarge,
    Unauthenticated,
)

S = grpc.StatusCode


@pytest.mark.parametrize(
    ("error", "code", "status", "retry_after"),
    [
        (IngestError, S.INTERNAL, 500, None),
        (InvalidRequest, S.INVALID_ARGUMENT, 400, None),
        (Unauthenticated, S.UNAUTHENTICATED, 401, None),
        (QueueFull, S.RESOURCE_EXHAUSTED, 429, 1),
        (LogFull, S.RESOURCE_EXHAUSTED, 429, 1),
        (StoreDown, S.UNAVAILABLE, 503, 2),
        (LogUnwritable, S.UNAVAILABLE, 503, 5),
        (TooLarge, S.INVALID_ARGUMENT, 413, None),
        (MemoryHigh, S.UNAVAILABLE, 503, 1),
    ],
)
def test_each_failure_answers_with_its_code_status_and_retry(error, code, status, retry_after):
    exc = error("refused")
    assert (grpc_code(exc), http_status(exc), exc.retry_after) == (code, status, retry_after)
