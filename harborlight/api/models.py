"""The API's answers as typed models, so OpenAPI names a schema for every JSON route.

Built from the derivations' own records (harborlight/read/derive/): a record's fields become the model's, and
each `Valued[T]` field is `{"value": T | null, "provenance": "measured" | "derived" | "inferred" |
"unavailable", "note": str | null}` on the wire. The routes answer the JSON the derivations and the stored rows
already are; tests/query/test_openapi_models.py checks real answers against these schemas."""

import dataclasses
from typing import Any, Literal, get_type_hints

from pydantic import BaseModel, ConfigDict, create_model

from harborlight.commit.committer import CommitStats
from harborlight.read.derive.behavior import Behavior
from harborlight.read.derive.compare import Comparison
from harborlight.read.derive.critical_path import CriticalPath
from harborlight.read.derive.duration_bins import DurationChart
from harborlight.read.derive.job_metrics import JobMetrics
from harborlight.read.derive.outcomes import TrialOutcome
from harborlight.read.derive.pass_at_k import PassAtK
from harborlight.read.derive.provenance import Valued
from harborlight.read.derive.time_split import JobTimeSplit, LongCall, TimeSplit
from harborlight.read.derive.timings import TrialTimings
from harborlight.store.broken_parts import BrokenPart
from harborlight.wal.write_ahead_log import LogReport


def record_fields(*records: type) -> dict[str, Any]:
    """The fields of dataclass records, typed as the records type them (Valued[T] included), all required."""
    fields: dict[str, Any] = {}
    for record in records:
        hints = get_type_hints(record)
        fields |= {f.name: (hints[f.name], ...) for f in dataclasses.fields(record)}
    return fields


def answer_model(name: str, doc: str, *records: type, **fields: Any) -> type[BaseModel]:
    """A model named `name` with the given fields, then every field of `records`; no field it does not name."""
    return create_model(name, __config__=ConfigDict(extra="forbid"), __doc__=doc, **fields, **record_fields(*records))


JobRow = answer_model(
    "JobRow",
    "A job's metrics (solve rates, counts, totals) and its pass@k / pass^k.",
    JobMetrics,
    pass_at_k=(answer_model("JobPassAtK", "pass@k and pass^k over the job's tasks.", PassAtK), ...),
)

TrialRow = answer_model(
    "TrialRow",
    "One trial: who ran what, how it ended, where its time went, its tokens and cost.",
    TrialOutcome,
    TrialTimings,
    job=(str, ...),
    trial=(str, ...),
    task=(str | None, ...),
    source=(str | None, ...),
    attempt=(int | None, ...),
    agent=(str | None, ...),
    agent_version=(str | None, ...),
    model=(str | None, ...),
    category=(str | None, ...),
    is_running=(bool, ...),
    started_at=(float | None, ...),
    finished_at=(float | None, ...),
    first_seen=(float | None, ...),
    last_seen=(float | None, ...),
    n_events=(int | None, ...),
    n_input_tokens=(Valued[int], ...),
    n_cache_tokens=(Valued[int], ...),
    n_output_tokens=(Valued[int], ...),
    cost_usd=(Valued[float], ...),
    n_steps=(Valued[int], ...),
    n_tool_calls=(Valued[int], ...),
)


class JobPage(BaseModel):
    items: list[JobRow]  # type: ignore[valid-type]
    next_cursor: str | None


class TrialPage(BaseModel):
    items: list[TrialRow]  # type: ignore[valid-type]
    next_cursor: str | None


class ToolCall(BaseModel):
    model_config = ConfigDict(extra="forbid")

    index: int
    name: str
    category: str
    targets: list[str]
    failed: bool | None
    failure: Valued[str]  # the lines of its observation that read as a failure
    timestamp: float | None
    step: int | None
    tool_call_id: str | None


class Step(BaseModel):
    model_config = ConfigDict(extra="forbid")

    step_id: int | str | None
    source: str | None
    timestamp: str | None
    dur: Valued[float]  # seconds until the next step opened


TrialBehavior = answer_model(
    "TrialBehavior",
    "How the agent worked: its tool calls by category, files touched, repeats, tokens per call.",
    Behavior,
    job=(str, ...),
    trial=(str, ...),
    n_calls=(int, ...),
    n_model_calls=(int, ...),
    truncated=(bool, ...),
    last_agent_message=(Valued[str], ...),
    steps=(Valued[list[Step]], ...),
    calls=(list[ToolCall], ...),
)

TrialTime = answer_model(
    "TrialTime",
    "Where the trial's agent phase went, its longest calls and its critical path.",
    TimeSplit,
    job=(str, ...),
    trial=(str, ...),
    longest_calls=(Valued[list[LongCall]], ...),
    critical_path=(Valued[CriticalPath], ...),
)
JobTime = answer_model("JobTime", "The job's finished trials' time splits summed.", JobTimeSplit, job=(str, ...))
TrialDurations = answer_model(
    "TrialDurations", "The trial's span durations on log-spaced bins.", DurationChart, job=(str, ...), trial=(str, ...)
)
JobDurations = answer_model(
    "JobDurations", "The job's span durations on log-spaced bins.", DurationChart, job=(str, ...)
)
JobComparison = answer_model(
    "JobComparison", "Jobs on their matched tasks: rates, differences, flips, paired tests.", Comparison
)


class SourceCounts(BaseModel):
    signal: str
    service: str | None
    job: str | None
    received: int
    accepted: int
    rejected: int
    truncated: int
    duplicate_requests: int


class RejectedReason(BaseModel):
    signal: str
    reason: str
    requests: int


class RefusedRequests(BaseModel):
    signal: str
    error: str
    requests: int


class SinceStart(BaseModel):
    """What this process received since it started (harborlight/ingest/accounting.py)."""

    sources: list[SourceCounts]
    rejected_reasons: list[RejectedReason]
    refused_requests: list[RefusedRequests]


class StoredCount(BaseModel):
    signal: str
    service: str
    job: str | None
    items: int


class BrokenParts(BaseModel):
    parts: list[BrokenPart]
    rows: int | None  # null: some part's rows are unknown


IngestReport = answer_model(
    "IngestReport",
    "What was received, accepted, rejected, deduplicated and stored; the writer and log (operator only, else null).",
    since_start=(SinceStart, ...),
    writer=(CommitStats | None, ...),
    log=(LogReport | None, ...),
    stored=(list[StoredCount], ...),
    broken_parts=(BrokenParts | None, ...),
)


class Commits(BaseModel):
    failing: bool
    failing_seconds: float
    consecutive_failures: int
    fault: str | None  # the store-wide fault being waited out (NOT_ENOUGH_SPACE, ENOSPC, ...)


class DiskState(BaseModel):
    free_bytes: int
    total_bytes: int
    nearly_full: bool


class Health(BaseModel):
    """ok (200), degraded (200 with damaged parts set aside; 503 when ingest is at risk) or unavailable (503)."""

    model_config = ConfigDict(extra="forbid")

    status: Literal["ok", "degraded", "unavailable"]
    reason: str | None = None
    reasons: list[str] | None = None
    store: str | None = None  # unavailable: why the store did not answer
    embedded: bool | None = None
    schema_version: int | None = None
    commit_lag_seconds: float | None
    unstored_requests: int
    commits: Commits
    disks: dict[str, DiskState]  # log, store, spool
    broken_parts: int | None = None  # null: the store will not list them


class ImportTally(BaseModel):
    """What one uploaded file gave: requests sent, items stored (new among them), rejected, and why."""

    model_config = ConfigDict(extra="forbid")

    requests: int
    stored: int
    new: int
    rejected: int
    duplicates: int
    reasons: dict[str, int]


# GET /api/trials/{trial}/trajectory answers the ATIF document harborlight/transfer/ builds (its records are
# harborlight/transfer/atif.py, which the API does not import): its required top level, named here.
TRAJECTORY_SCHEMA: dict[str, Any] = {
    "title": "Trajectory",
    "type": "object",
    "required": ["schema_version", "agent", "steps"],
    "properties": {
        "schema_version": {"type": "string", "description": "ATIF-v1.6 to ATIF-v1.8"},
        "session_id": {"type": ["string", "null"]},
        "agent": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
        "steps": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["step_id", "source"],
                "properties": {"step_id": {"type": "integer"}, "source": {"enum": ["user", "agent", "system"]}},
            },
        },
        "final_metrics": {"type": ["object", "null"]},
        "subagent_trajectories": {"type": ["array", "null"], "items": {"type": "object"}},
    },
}
