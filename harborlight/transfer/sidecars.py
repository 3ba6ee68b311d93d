"""The analysis sidecars of a trial (pure): `trace.json`, every span and event with its start and end
in nanoseconds, kind and timing quality; `agent/gateway.log`, one JSON line per model call with its
HTTP status, so 429s can be counted."""

import json

from pydantic_core import to_json

from harborlight.transfer.telemetry import TrialTelemetry
from harborlight.transfer.trajectory_build import iso


def trace_json(trial: TrialTelemetry) -> str:
    spans = []
    for e in trial.events:
        item = {
            "event_id": e.event_id,
            "trace_id": e.trace_id,
            "span_id": e.span_id,
            "parent_span_id": e.parent_span_id,
            "source": e.source,
            "name": e.name,
            "kind": e.kind,
            "service": e.service,
            "start_ns": e.start_ns,
            "end_ns": e.end_ns,
            "timing": e.timing,
        }
        facts = {
            "model": e.model,
            "input_tokens": e.input_tokens,
            "cached_tokens": e.cached_tokens,
            "output_tokens": e.output_tokens,
            "cost_usd": e.cost_usd,
            "http_status": e.http_status,
            "error_type": e.error_type,
            "success": e.success,
            "tool_name": e.tool_name,
            "tool_category": e.tool_category,
            "tool_call_id": e.tool_call_id,
        }
        item.update({k: v for k, v in facts.items() if v is not None})
        spans.append(item)
    # pydantic's serializer: json.dumps with an indent falls back to a pure-Python encoder, ~10x slower.
    return to_json({"trial": trial.name, "spans": spans}, indent=2).decode() + "\n"


def gateway_log(trial: TrialTelemetry) -> str:
    lines = []
    for e in trial.events:
        if e.kind != "llm_request" or e.is_lifecycle:
            continue
        status = e.http_status if e.http_status is not None else (200 if e.success is not False else None)
        record = {
            "time": iso(e.start_ns),
            "model": e.model,
            "status": status,
            "error_type": e.error_type,
            "duration_ms": (e.end_ns - e.start_ns) / 1e6 if e.end_ns is not None else None,
            "input_tokens": e.input_tokens,
            "cached_tokens": e.cached_tokens,
            "output_tokens": e.output_tokens,
            "cost_usd": e.cost_usd,
        }
        lines.append(json.dumps(record, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)
