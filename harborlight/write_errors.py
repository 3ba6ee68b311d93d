"""The failures of the write path, from a request's decoding to the store's commit, and the reading of a
store error as a fault of the store as a whole (transient) or one that may be the request's own.

What each failure answers on the wire (its gRPC code and HTTP status) is ingest's, in
harborlight/ingest/errors.py: the write-ahead log and the committer below it raise these without it."""

import errno
import re


class IngestError(Exception):
    """A request the write path refuses or cannot store."""

    retry_after: int | None = None  # seconds; set: retryable (HTTP Retry-After, gRPC RetryInfo)


class InvalidRequest(IngestError):
    """The request as a whole cannot be decoded; retrying it cannot help."""


class Unauthenticated(IngestError):
    """The request carries no token the server accepts."""


class QueueFull(IngestError):
    """The writer's bounded queue is full: the exporter should back off and retry."""

    retry_after = 1


class LogFull(QueueFull):
    """The write-ahead log holds as much as it may (--wal-max-mib) until the store takes some of it."""


class StoreDown(IngestError):
    """The store failed to commit: nothing of the request was acknowledged, a retry is safe."""

    retry_after = 2


class LogUnwritable(StoreDown):
    """The write-ahead log's disk refused the request's bytes (full, or failing): nothing of it was
    acknowledged, nothing partial stays in the log; a retry is safe once space is back."""

    retry_after = 5


class TooLarge(IngestError):
    """Over a size limit: the same request would be refused again, so not retryable."""


class MemoryHigh(IngestError):
    """The process is near its memory limit: refused before anything is accepted, retry later."""

    retry_after = 1


# ClickHouse error codes that say the store as a whole cannot take writes now, whatever the request: a
# commit failing with one of them is tried again (the same batch, the same token), never set aside.
STORE_FAULT_CODES = {
    74: "CANNOT_READ_FROM_FILE_DESCRIPTOR",
    75: "CANNOT_WRITE_TO_FILE_DESCRIPTOR",
    76: "CANNOT_OPEN_FILE",
    81: "UNKNOWN_DATABASE",
    60: "UNKNOWN_TABLE",
    95: "CANNOT_FSYNC",
    159: "TIMEOUT_EXCEEDED",
    160: "TOO_SLOW",
    164: "READONLY",
    173: "CANNOT_ALLOCATE_MEMORY",
    202: "TOO_MANY_SIMULTANEOUS_QUERIES",
    203: "NO_FREE_CONNECTION",
    209: "SOCKET_TIMEOUT",
    210: "NETWORK_ERROR",
    225: "NO_ZOOKEEPER",
    236: "ABORTED",
    241: "MEMORY_LIMIT_EXCEEDED",
    242: "TABLE_IS_READ_ONLY",
    243: "NOT_ENOUGH_SPACE",
    252: "TOO_MANY_PARTS",
    279: "ALL_CONNECTION_TRIES_FAILED",
    319: "UNKNOWN_STATUS_OF_INSERT",
    394: "QUERY_WAS_CANCELLED",
    425: "SYSTEM_ERROR",
    439: "CANNOT_SCHEDULE_TASK",
    497: "ACCESS_DENIED",
    516: "AUTHENTICATION_FAILED",
    999: "KEEPER_EXCEPTION",
    1000: "POCO_EXCEPTION",
}
_SPACE_ERRNOS = {errno.ENOSPC, errno.EDQUOT}
_CODE = re.compile(r"\bCode: (\d+)\b")
_NO_SPACE = re.compile(r"No space left on device|errno: 28\b|Disk quota exceeded|not enough space", re.I)


def store_fault(exc: BaseException | None) -> str | None:
    """The name of the store-wide fault `exc` is (no space, memory, too many parts, a timeout, the store
    unreachable, the spool file's disk full, ...), or None when it may be the request's own.

    Read from the exception's type and its ClickHouse error code (clickhouse-connect's `.code`, else the
    `Code: N.` of its message), along its causes."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError):
            if exc.errno in _SPACE_ERRNOS:
                return "ENOSPC"
            return type(exc).__name__  # connection refused or reset, a timeout, an I/O error: not the request's
        if isinstance(exc, MemoryError | TimeoutError):
            return type(exc).__name__
        code = getattr(exc, "code", None)
        if not isinstance(code, int):
            match = _CODE.search(str(exc))
            code = int(match.group(1)) if match else None
        if code in STORE_FAULT_CODES:
            return STORE_FAULT_CODES[code]
        if _NO_SPACE.search(str(exc)):
            return "ENOSPC"
        if type(exc).__name__ in ("OperationalError", "StreamFailureError"):  # clickhouse-connect: no answer
            return type(exc).__name__
        exc = exc.__cause__ or exc.__context__
    return None


def no_space(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno in _SPACE_ERRNOS


def brief(exc: Exception, limit: int = 300) -> str:
    """The first line of a store error: clickhouse-connect quotes the whole request URL otherwise."""
    text = str(exc).strip()
    text = text.splitlines()[0] if text else type(exc).__name__
    return text if len(text) <= limit else text[:limit] + "..."
