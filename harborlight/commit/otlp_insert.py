"""Writes a group of OTLP export requests in one go: ClickHouse decodes the bytes itself.

Embedded: the requests are staged, length-delimited, in a tmpfs file that `file()` reads.
Server: the same bytes are the body of an `INSERT ... SELECT ... FROM input()` request.
The engine decodes scalar values; a request holding arrays or maps has them replaced by the text the exporter
stores for them (harborlight/commit/structured_values.py) before the engine reads it.
"""

import os
import tempfile
from collections.abc import Callable

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest

from harborlight.commit import ingest_sql
from harborlight.commit.ingest_sql import DECODING, Decoding
from harborlight.commit.nested_values import may_hold_nested_values
from harborlight.commit.structured_values import flatten_structured_values, with_structured_values_as_text
from harborlight.sql_text import literal
from harborlight.store.client import COMMIT_PRIORITY, Store
from harborlight.store.signal import Signal

_STRUCTURE = {
    Signal.traces: lambda d: d.traces_structure,
    Signal.logs: lambda d: d.logs_structure,
    Signal.metrics: lambda d: d.metrics_structure,
}
_MESSAGE = {
    Signal.traces: "ExportTraceServiceRequest",
    Signal.logs: "ExportLogsServiceRequest",
    Signal.metrics: "ExportMetricsServiceRequest",
}
_INSERTS = {
    Signal.traces: [ingest_sql.traces_insert],
    Signal.logs: [ingest_sql.logs_insert],
}
# A metrics commit runs the INSERT of each type its requests hold (an INSERT's planning is most of its cost).
_METRIC_INSERTS = {
    "gauge": ingest_sql.gauge_insert,
    "sum": ingest_sql.sum_insert,
    "histogram": ingest_sql.histogram_insert,
    "exponential_histogram": ingest_sql.exponential_histogram_insert,
    "summary": ingest_sql.summary_insert,
}


def _settings(signal: Signal, decoding: Decoding, embedded: bool) -> dict[str, str]:
    if embedded:
        # The packaged file: sent as a string, the engine would cache it in ./__cache__ of whatever
        # directory harborlight was started from.
        schema = {"format_schema": f"{decoding.proto_path}:{_MESSAGE[signal]}"}
    else:
        # A server cannot read our files: send the schema itself (it caches it in its own directory).
        schema = {
            "format_schema_source": "string",
            "format_schema": decoding.proto_schema,
            "format_schema_message_name": _MESSAGE[signal],
        }
    # A commit may span many (tenant, day) partitions, an import of an old run many days: the engine's
    # default refuses an INSERT block touching more than 100, with TOO_MANY_PARTS, which no retry cures.
    return {**schema, "async_insert": "0", "priority": str(COMMIT_PRIORITY), "max_partitions_per_insert_block": "0"}


def needs_nested_decoding(signal: Signal, request: bytes) -> bool:
    """Whether the request is read in Python before the engine reads it, for its array and kvlist values:
    metrics always (their requests are few, and their types pick the INSERTs), traces and logs when they
    may hold such a value."""
    return signal is Signal.metrics or may_hold_nested_values(request)


def _metrics_prepared(requests: list[bytes]) -> tuple[list[bytes], list[Callable[..., str]]]:
    """The requests with their arrays and maps as stored text, and the INSERTs of the types they hold."""
    kinds: set[str] = set()
    prepared = []
    for request in requests:
        message = ExportMetricsServiceRequest.FromString(request)
        flatten_structured_values(Signal.metrics, message)
        kinds.update(
            m.WhichOneof("data") for rm in message.resource_metrics for sm in rm.scope_metrics for m in sm.metrics
        )
        prepared.append(message.SerializeToString())
    return prepared, [insert for kind, insert in _METRIC_INSERTS.items() if kind in kinds]


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _framed(requests: list[bytes]) -> list[bytes]:
    """The Protobuf input format: each message prefixed by its length as a varint."""
    return [part for r in requests for part in (_varint(len(r)), r)]


def length_delimited(requests: list[bytes]) -> bytes:
    return b"".join(_framed(requests))


def insert_requests(
    store: Store,
    signal: Signal,
    requests: list[bytes],
    tenant: str | None = None,
    nested: bool | None = None,
    retry_token: str | None = None,
) -> None:
    """Commits every item of `requests` (already validated) to the signal's tables; raises on failure.
    With a tenant, every row's resource attributes carry it. `nested`: whether any request may hold an
    array or map value (None: look now; False skips the look).
    `retry_token` names this exact group of requests: inserting it again under the same token skips
    whatever an earlier, failed attempt had already written, in the tables and in their views."""
    if not requests:
        return
    # the engine decodes scalars: arrays and maps go to it as their stored text
    if signal is Signal.metrics:
        requests, inserts = _metrics_prepared(requests)
    else:
        inserts = _INSERTS[signal]
        if nested is None or nested:
            requests = [
                with_structured_values_as_text(signal, r) if needs_nested_decoding(signal, r) else r for r in requests
            ]
    decoding = DECODING
    settings = _settings(signal, decoding, store.embedded)
    if retry_token:
        settings["insert_deduplication_token"] = f"{retry_token}:{signal.value}:{tenant or ''}"
        settings["deduplicate_blocks_in_dependent_materialized_views"] = "1"
    structure = literal(_STRUCTURE[signal](decoding))
    if not store.embedded:
        blob = length_delimited(requests)
        for insert in inserts:
            store.client.command(
                f"{insert(f'input({structure})', tenant, decoding)} FORMAT Protobuf", data=blob, settings=settings
            )
        return
    assert store.spool_dir is not None
    fd, path = tempfile.mkstemp(dir=store.spool_dir, suffix=".pb")
    try:
        with os.fdopen(fd, "wb") as f:
            f.writelines(_framed(requests))  # no joined copy of the whole commit
        source = f"file({literal(path)}, 'Protobuf', {structure})"
        inline = ", ".join(f"{k} = {literal(v)}" for k, v in settings.items())
        for insert in inserts:
            store.client.command(f"{insert(source, tenant, decoding)} SETTINGS {inline}")
    finally:
        os.unlink(path)
