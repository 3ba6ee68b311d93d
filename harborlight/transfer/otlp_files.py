"""OpenTelemetry files as export requests (pure): bytes in, (signal, protobuf request) chunks out.

Accepted shapes, told apart by their content:
- the Collector file exporter's JSON lines: one OTLP/JSON export request per line;
- one OTLP/JSON document (an export request object, or a JSON array of them);
- OTLP protobuf: the file exporter's `proto` format (each request preceded by its 4-byte big-endian
  length), or one bare ExportTraceServiceRequest / ExportLogsServiceRequest / ExportMetricsServiceRequest;
- any of these gzip-compressed (inflated up to a limit when one is given: a gzip bomb stops there).
JSON goes through the collector's OTLP/JSON decoding, exactly as an OTLP/HTTP JSON request does. A
piece that cannot be read raises TransferError naming the file and the place; the chunks before it
have already been yielded, so they can be stored.
"""

import json
from collections.abc import Iterator
from dataclasses import dataclass

from google.protobuf.message import DecodeError

from harborlight.ingest.otlp_json import json_to_protobuf
from harborlight.ingest.request_body import GZIP_MAGIC, inflate
from harborlight.ingest.signals import SIGNALS
from harborlight.store import Signal
from harborlight.transfer.errors import FileTooLarge, TransferError
from harborlight.write_errors import InvalidRequest, TooLarge

_JSON_KEYS = {
    "resourceSpans": Signal.traces,
    "resource_spans": Signal.traces,
    "resourceLogs": Signal.logs,
    "resource_logs": Signal.logs,
    "resourceMetrics": Signal.metrics,
    "resource_metrics": Signal.metrics,
}


@dataclass(frozen=True)
class Chunk:
    signal: Signal
    body: bytes  # an ExportXServiceRequest, protobuf-encoded
    where: str  # "line 3", "request 2", ...


def read_chunks(name: str, data: bytes, max_bytes: int | None = None) -> Iterator[Chunk]:
    """`max_bytes`: the most a gzip-compressed file may inflate to (None: no limit)."""
    if data[:2] == GZIP_MAGIC:
        try:
            data = inflate(data, "gzip", max_bytes)
        except TooLarge:
            raise FileTooLarge(
                f"{name}: inflates past the {max_bytes}-byte limit; "
                "import it with `harborlight import otlp FILE --server URL`"
            ) from None
        except InvalidRequest as exc:
            raise TransferError(f"{name}: not a readable gzip file ({exc})") from None
    stripped = data.lstrip()
    if stripped[:1] in (b"{", b"["):
        yield from _json_chunks(name, data)
    elif not stripped:
        raise TransferError(f"{name}: the file is empty")
    else:
        yield from _protobuf_chunks(name, data)


def _json_signal(name: str, where: str, document) -> Signal:
    if isinstance(document, dict):
        for key in document:
            if key in _JSON_KEYS:
                return _JSON_KEYS[key]
    raise TransferError(
        f"{name}: {where} is not an OTLP/JSON export request (expected resourceSpans, resourceLogs or resourceMetrics)"
    )


def _from_json(name: str, where: str, text: bytes, document) -> Chunk:
    signal = _json_signal(name, where, document)
    try:
        return Chunk(signal, json_to_protobuf(SIGNALS[signal], text), where)
    except InvalidRequest as exc:
        raise TransferError(f"{name}: {where}: {exc}") from None


def _json_chunks(name: str, data: bytes) -> Iterator[Chunk]:
    try:
        whole = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError):
        whole = None
    except RecursionError:
        raise TransferError(f"{name}: nests JSON too deeply to be OTLP") from None
    if isinstance(whole, dict):
        yield _from_json(name, "the document", data, whole)
        return
    if isinstance(whole, list):
        for index, item in enumerate(whole, 1):
            yield _from_json(name, f"request {index}", json.dumps(item).encode(), item)
        return
    for number, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        try:
            document = json.loads(line)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise TransferError(f"{name}: line {number} is not valid JSON (truncated?): {exc}") from None
        except RecursionError:
            raise TransferError(f"{name}: line {number} nests JSON too deeply to be OTLP") from None
        yield _from_json(name, f"line {number}", line, document)


def _protobuf_chunks(name: str, data: bytes) -> Iterator[Chunk]:
    if data[0] != 0:  # a bare request starts with its first field's tag; a frame with a length's high byte
        yield Chunk(_protobuf_signal(name, "the file", data), data, "the file")
        return
    offset, index = 0, 0
    while offset < len(data):
        index += 1
        size = int.from_bytes(data[offset : offset + 4], "big")
        if offset + 4 > len(data) or size == 0 or offset + 4 + size > len(data):
            raise TransferError(f"{name}: request {index} is cut short at byte {offset} (truncated file?)")
        piece = data[offset + 4 : offset + 4 + size]
        yield Chunk(_protobuf_signal(name, f"request {index}", piece), piece, f"request {index}")
        offset += 4 + size


def _plausible(signal: Signal, request) -> int:
    """How many items look like real items of this signal (the three requests share field numbers)."""
    if signal is Signal.traces:
        return sum(
            len(s.trace_id) == 16 and len(s.span_id) == 8
            for rs in request.resource_spans
            for ss in rs.scope_spans
            for s in ss.spans
        )
    if signal is Signal.logs:
        return sum(
            bool(r.time_unix_nano or r.observed_time_unix_nano)
            for rl in request.resource_logs
            for sl in rl.scope_logs
            for r in sl.log_records
        )
    return sum(
        bool(m.name and m.WhichOneof("data"))
        for rm in request.resource_metrics
        for sm in rm.scope_metrics
        for m in sm.metrics
    )


def _protobuf_signal(name: str, where: str, body: bytes) -> Signal:
    best, best_score = None, 0
    for signal, spec in SIGNALS.items():
        try:
            request = spec.request.FromString(body)
        except DecodeError:
            continue
        score = _plausible(signal, request)
        if score > best_score:
            best, best_score = signal, score
    if best is None:
        raise TransferError(
            f"{name}: {where} is not OTLP protobuf, OTLP/JSON or JSON lines (truncated or another format?)"
        )
    return best
