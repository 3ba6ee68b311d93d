"""Reads one job's (or one trial's) telemetry from the store: its resolved agent events (resolved_events, each
call once and every record named after its trial: harborlight/summaries/resolve.py), joined in Python with the
raw span and log attributes they came from (otel_traces, otel_logs). At most five queries per read, whatever its
size; every query is filtered by tenant ('' when tenants are off).

Derived child records (content their carrier carried) are no records here: the trajectory reads that content
from the carrier. So where the resolution kept a derived record over the record it was told twice by (Claude
Code's interaction span's user message over its user_prompt log event), that record is read in its place. Of
a kept record's dropped twin only its content is read (arguments, results, text), which the kept record may
lack as it may lack a fact (Codex's and Claude Code's tool spans carry no arguments, their events do)."""

import gc
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from harborlight.agent.rules import SPAN_EVENTS_AS_ATTRIBUTES
from harborlight.agent.sources import log_event_id_sql
from harborlight.agent.twins import DERIVED_RECORD
from harborlight.read.statements.resolved_sql import ONE_TRIAL
from harborlight.read.statements.tenancy import AGENT_TENANT_FILTER as _AGENT_TENANT
from harborlight.read.statements.tenancy import RAW_TENANT_FILTER as _RAW_TENANT
from harborlight.sql_text import Sql, literal
from harborlight.store import Store
from harborlight.transfer import harbor_logs
from harborlight.transfer.errors import TransferError, UnknownJob, UnknownTrial
from harborlight.transfer.telemetry import Event, SpanEvent, TrialTelemetry

_JOB = Sql("JobKey = {job:String}")
# One trial (of one job when given: a trial name may be in several jobs).
_TRIAL = Sql(f"{ONE_TRIAL} AND ({{job:String}} = '' OR JobKey = {{job:String}})")

_COLUMNS = """EventId, TraceId, SpanId, ParentSpanId, SourceTable, Kind, Resolve, Name, ServiceName, ScopeName,
       toUnixTimestamp64Nano(Timestamp), toUnixTimestamp64Nano(EndTimestamp), TimingQuality,
       TrialName, Attempt, TaskName, AgentName, Model, InputTokens, CachedTokens, CacheWriteTokens, OutputTokens,
       ReasoningTokens, CostUsd, HttpStatus, ErrorType, Success, ToolName, ToolCategory, ToolCallId,
       toUnixTimestamp64Nano(Timestamp) + ifNull(DurationNs, 0), AgentVersion, RequestId, SideCall"""
_TWIN, _JOB_NAME, _TRIAL_NAME = 34, 35, 13  # positions of TwinId and the job name; the trial name's

# The raw records' look-ups: a record is its stored agent event's (EventId); a dropped twin is read by its id in
# the key ranges of the names the events read go by (their trials and traces: a twin is stored under its own
# name, before it was named after its trial).
RECORDS = f"""
SELECT {_COLUMNS}, '', JobName FROM agent_events
WHERE {_AGENT_TENANT} AND TrialName IN {{names:Array(String)}} AND EventId IN {{ids:Array(String)}}
"""


# otel_traces rows of the traces `span_traces` (bound) between their first and last second, by one scalar subquery
# of the traces' time table (ordered by trace id). otel_traces' ORDER BY leads to the time after service and span
# name, so the trace-id bloom index is checked in those granules only, not in every granule of the table (which
# grew with the store: issue 18).
_SPAN_BOUNDS = (
    "(SELECT (min(Start), max(End)) FROM otel_traces_trace_id_ts WHERE TraceId IN {span_traces:Array(String)})"
)
SPANS = f"""
SELECT TraceId, SpanId, SpanAttributes, if(startsWith(SpanName, 'harbor.'), ResourceAttributes, map()),
       StatusMessage, arrayMap(t -> toUnixTimestamp64Nano(t), `Events.Timestamp`), `Events.Name`,
       `Events.Attributes`
FROM otel_traces
WHERE TraceId IN {{span_traces:Array(String)}}
  AND toDateTime(Timestamp) >= tupleElement({_SPAN_BOUNDS}, 1)
  AND toDateTime(Timestamp) <= tupleElement({_SPAN_BOUNDS}, 2)
  AND {_RAW_TENANT}
"""

# otel_logs rows by their agent event's id, within their services and first to last nanosecond (bound): concurrent
# trials' events can share a service, an empty trace and a time.
LOGS = f"""
SELECT {log_event_id_sql()}, Body, LogAttributes
FROM otel_logs
WHERE ServiceName IN {{log_services:Array(String)}}
  AND Timestamp >= fromUnixTimestamp64Nano({{log_first:Int64}})
  AND Timestamp <= fromUnixTimestamp64Nano({{log_last:Int64}})
  AND {_RAW_TENANT}
  AND {log_event_id_sql()} IN {{log_ids:Array(String)}}
"""


@dataclass(frozen=True)
class _Reads:
    """The statements that read the resolved agent events of one scope (a job, or one trial)."""

    scope: Sql

    @property
    def events(self) -> Sql:
        """The scope's counted records, and the derived ones kept over a record that told the same (restored
        from agent_events by `RECORDS`)."""
        return Sql(f"""
SELECT {_COLUMNS}, TwinId, JobName
FROM resolved_events FINAL
WHERE {self.scope.text} AND {_AGENT_TENANT} AND NOT OuterTelling AND (NOT {DERIVED_RECORD} OR TwinId != '')
ORDER BY TrialName, Timestamp, EventId
""")


JOB, TRIAL = _Reads(_JOB), _Reads(_TRIAL)
_JOBS_OF_TRIAL = (
    f"SELECT DISTINCT JobKey FROM resolved_events FINAL WHERE {_TRIAL.text} AND {_AGENT_TENANT} ORDER BY JobKey"
)


CARRIED_LOGS = f"""
SELECT EventName, ResourceAttributes['harbor.trial.name'], toUnixTimestamp64Nano(Timestamp),
       toUInt32OrZero(LogAttributes['{harbor_logs.PART}']), toUInt32OrZero(LogAttributes['{harbor_logs.PARTS}']), Body
FROM otel_logs
WHERE ScopeName = {literal(harbor_logs.SCOPE)} AND EventName IN ({", ".join(literal(e) for e in harbor_logs.CARRIED)})
  AND ResourceAttributes['harbor.job.name'] = {{job:String}} AND {_RAW_TENANT}
"""


def read_logs(store: Store, job: str, tenant: str = "") -> harbor_logs.CarriedLogs:
    """The files the Harbor importer carried for the job (harborlight/transfer/harbor_logs.py)."""
    per_trial = (harbor_logs.TRIAL_LOG, harbor_logs.TRIAL_LOCK)
    files: dict[tuple[str, str], list[tuple[int, int, int, str]]] = defaultdict(list)
    for name, trial, written, part, parts, body in store.client.query(
        CARRIED_LOGS, parameters={"job": job, "tenant": tenant}
    ).result_rows:
        files[(name, trial if name in per_trial else "")].append((written, part, parts, body))
    texts = {key: text for key, rows in files.items() if (text := harbor_logs.joined(rows)) is not None}

    def of_trials(event: str) -> dict[str, str]:
        return {trial: text for (name, trial), text in texts.items() if name == event}

    return harbor_logs.CarriedLogs(
        job=texts.get((harbor_logs.JOB_LOG, "")),
        trials=of_trials(harbor_logs.TRIAL_LOG),
        job_lock=texts.get((harbor_logs.JOB_LOCK, "")),
        trial_locks=of_trials(harbor_logs.TRIAL_LOCK),
    )


def read_job(store: Store, job: str, tenant: str = "") -> dict[str, TrialTelemetry]:
    trials = _read(store, JOB, {"job": job, "tenant": tenant})
    if not trials:
        raise UnknownJob(f"unknown job {job!r}: no telemetry is stored under that name")
    return trials


def read_trial(store: Store, trial: str, job: str = "", tenant: str = "") -> tuple[str, TrialTelemetry]:
    """(its job, the trial's telemetry), read as read_job reads it, for one trial only."""
    params = {"trial": trial, "job": job, "tenant": tenant}
    jobs = [j for (j,) in store.client.query(_JOBS_OF_TRIAL, parameters=params).result_rows]
    if len(jobs) > 1:
        raise TransferError(f"trial {trial!r} is in {len(jobs)} jobs ({', '.join(map(str, jobs))}): name the job")
    telemetry = _read(store, TRIAL, params).get(trial)
    if telemetry is None:
        raise UnknownTrial(f"no agent events for trial {trial!r}" + (f" in job {job!r}" if job else ""))
    return jobs[0] or "", telemetry


def _read(store: Store, reads: _Reads, params: dict[str, str]) -> dict[str, TrialTelemetry]:
    """The events `reads` selects, by trial, each with its raw record's attributes."""
    with _collector_paused():
        rows = store.client.query(reads.events.text, parameters=reads.events.bind(params)).result_rows
        rows, twin_rows = _restored(store, params, rows)
        raw = [*rows, *twin_rows]
        spans: dict[tuple, tuple] = {}
        logs: dict[str, tuple] = {}
        if traces := sorted({r[1] for r in raw if r[4] == "otel_traces"}):
            spans = {
                (r[0], r[1]): r
                for r in store.client.query(SPANS, parameters={**params, "span_traces": traces}).result_rows
            }
        if log_rows := [r for r in raw if r[4] == "otel_logs"]:
            logs = {r[0]: r for r in store.client.query(LOGS, parameters={**params, **log_keys(log_rows)}).result_rows}
        twins = {r[0]: _attributes(r, spans, logs) for r in twin_rows}
        trials: dict[str, TrialTelemetry] = {}
        for r in rows:
            event = _event(r, spans, logs, twins.get(r[_TWIN], {}))
            trials.setdefault(event.trial, TrialTelemetry(event.trial)).events.append(event)
    return trials


def _restored(store: Store, params: dict[str, str], rows: list[tuple]) -> tuple[list[tuple], list[tuple]]:
    """(the events: each derived record kept over its twin replaced by that twin, named as it was resolved, in time
    order; the kept records' dropped twins), the twins read from agent_events in one query."""
    derived = {r[0]: r for r in rows if ":" in r[0]}
    wanted = {r[_TWIN] for r in rows if r[_TWIN]}
    if not wanted:
        return [r for r in rows if r[0] not in derived], []
    names = sorted({n for r in rows for n in (r[_TRIAL_NAME], r[1], params.get("trial")) if n})
    found = {
        r[0]: r
        for r in store.client.query(RECORDS, parameters={**params, "names": names, "ids": sorted(wanted)}).result_rows
        if ":" not in r[0]
    }
    by_twin = {r[_TWIN]: r for r in derived.values()}
    events, twins = [r for r in rows if r[0] not in derived], []
    for twin_id, twin in found.items():
        if (kept := by_twin.get(twin_id)) is not None:
            # read in the derived record's place, under the trial and job it resolved to
            events.append((*twin[:_TRIAL_NAME], kept[_TRIAL_NAME], *twin[_TRIAL_NAME + 1 : _TWIN], "", kept[_JOB_NAME]))
        else:
            twins.append(twin)
    events.sort(key=lambda r: (r[_TRIAL_NAME] is None, r[_TRIAL_NAME] or "", r[10], r[0]))  # as ORDER BY reads
    return events, twins


def log_keys(rows: list[tuple]) -> dict[str, object]:
    """The bound look-up of the log records of `rows`: their services, first and last time, event ids."""
    times = [r[30] for r in rows]
    return {
        "log_services": sorted({r[8] for r in rows}),
        "log_first": min(times),
        "log_last": max(times),
        "log_ids": [r[0] for r in rows],
    }


def _attributes(r: tuple, spans: dict, logs: dict) -> dict[str, str]:
    """A dropped twin's content: its raw record's attributes."""
    if r[4] == "otel_traces":
        raw = spans.get((r[1], r[2]))
        return dict(raw[2]) if raw is not None else {}
    raw_log = logs.get(r[0])
    return dict(raw_log[2]) if raw_log is not None else {}


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cycle collector off while the job's records are built: every object made is kept, so its
    passes, over a heap that grows by millions of objects, find nothing (~2 s of ~14 on 1,000 trials)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def _event(r: tuple, spans: dict, logs: dict, twin: dict[str, str]) -> Event:
    """`twin`: the attributes of the record's dropped twin; what the record tells itself wins over them."""
    attributes: dict[str, str] = {}
    resource: dict[str, str] = {}
    span_events: tuple[SpanEvent, ...] = ()
    status = ""
    if r[4] == "otel_traces":
        raw = spans.get((r[1], r[2]))
        if raw is not None:
            resource, status = dict(raw[3]), raw[4]
            span_events = tuple(SpanEvent(n, t, dict(a)) for t, n, a in zip(raw[5], raw[6], raw[7], strict=True))
            # as the agent views read a span (rules.SPAN_EVENTS_AS_ATTRIBUTES): the first event's value, the span's
            # over all
            carried = [e.attributes for e in reversed(span_events) if e.name in SPAN_EVENTS_AS_ATTRIBUTES]
            attributes = {k: v for a in [*carried, dict(raw[2])] for k, v in a.items()}
    else:
        raw_log = logs.get(r[0])
        if raw_log is not None:
            attributes = {**dict(raw_log[2]), "body": raw_log[1]}
    return Event(
        event_id=r[0],
        trace_id=r[1],
        span_id=r[2],
        parent_span_id=r[3],
        source=r[4],
        kind=r[5],
        resolve=r[6],
        name=r[7],
        service=r[8],
        scope=r[9],
        start_ns=r[10],
        end_ns=r[30] if r[4] == "otel_logs" and r[11] is not None else r[11],
        timing=r[12],
        trial=r[13] or "",
        attempt=r[14],
        task=r[15],
        agent=r[16],
        model=r[17],
        input_tokens=r[18],
        cached_tokens=r[19],
        cache_write_tokens=r[20],
        output_tokens=r[21],
        reasoning_tokens=r[22],
        cost_usd=r[23],
        http_status=r[24],
        error_type=r[25],
        success=r[26],
        tool_name=r[27],
        tool_category=r[28],
        tool_call_id=r[29],
        agent_version=r[31],
        request_id=r[32],
        side_call=r[33],
        attributes={**twin, **attributes},
        resource=resource,
        span_events=span_events,
        status_message=status,
    )
