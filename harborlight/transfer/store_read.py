"""Reads one job's (or one trial's) telemetry from the store: its agent events (agent_events), joined
in Python with the raw span and log attributes they came from (otel_traces, otel_logs). At most six
queries per read, whatever its size; every query is filtered by tenant ('' when tenants are off). A
call told both by a span and by a log event is read once (harborlight/agent/twins.py); derived child
records are no records here, so they take no part in that either. The raw records read are those of
the events read, and of the dropped twins only their content (arguments, results, text), which the kept
record may lack as it may lack a fact (Codex's and Claude Code's tool spans carry no arguments, their
events do): reading every twin's whole record would read, on a job that streams both signals, the other
half for nothing (~2 s of 1,000 trials)."""

import gc
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property

from harborlight.agent import twins as agent_twins
from harborlight.agent.identity import named
from harborlight.agent.rules import SPAN_EVENTS_AS_ATTRIBUTES
from harborlight.agent.sources import log_event_id_sql
from harborlight.commit.ingest_sql import TENANT_ATTRIBUTE
from harborlight.store import Store
from harborlight.transfer import harbor_logs
from harborlight.transfer.errors import TransferError, UnknownJob, UnknownTrial
from harborlight.transfer.telemetry import Event, SpanEvent, TrialTelemetry

_AGENT_TENANT = "({tenant:String} = '' OR Tenant = {tenant:String})"
_RAW_TENANT = f"({{tenant:String}} = '' OR ResourceAttributes['{TENANT_ATTRIBUTE}'] = {{tenant:String}})"

_JOB = "JobName = {job:String}"
# One trial (of one job when given: a trial name may be in several jobs).
_TRIAL = "TrialName = {trial:String} AND ({job:String} = '' OR JobName = {job:String})"


# otel_traces rows between the first and the last second of the traces `span_traces` (those of the events read,
# bound), by one scalar subquery of the traces' time table (ordered by trace id). otel_traces' ORDER BY leads to
# the time after service and span name, so the trace-id bloom index is checked in those granules only, not in
# every granule of the table (which grew with the store: issue 18).
_SPAN_BOUNDS = (
    "(SELECT (min(Start), max(End)) FROM otel_traces_trace_id_ts WHERE TraceId IN {span_traces:Array(String)})"
)
_WITHIN_TRACES = (
    f"toDateTime(Timestamp) >= tupleElement({_SPAN_BOUNDS}, 1)"
    f" AND toDateTime(Timestamp) <= tupleElement({_SPAN_BOUNDS}, 2)"
)


@dataclass(frozen=True)
class _Reads:
    """The statements that read the agent events of one scope (a job, or one trial) and their raw
    records; `events`, `spans` and `logs` by the form they are read in (agent_twins.FORMS, asked by `form`)."""

    scope: str

    @cached_property
    def identity(self) -> str:
        return f"{self.scope} AND {_AGENT_TENANT}"

    @cached_property
    def records(self) -> str:
        # A derived child record is content of its carrier, no record of its own.
        return f"{self.identity} AND Provenance['kind'] != 'derived'"

    @cached_property
    def form(self) -> str:
        return agent_twins.form(self.records, scope=self.identity)

    @cached_property
    def events(self) -> dict[int, str]:
        return {
            form: f"""
SELECT EventId, TraceId, SpanId, ParentSpanId, SourceTable, Kind, Resolve, Name, ServiceName, ScopeName,
       toUnixTimestamp64Nano(Timestamp), toUnixTimestamp64Nano(EndTimestamp), TimingQuality,
       TrialName, Attempt, TaskName, AgentName, Model, InputTokens, CachedTokens, CacheWriteTokens, OutputTokens,
       ReasoningTokens, CostUsd, HttpStatus, ErrorType, Success, ToolName, ToolCategory, ToolCallId,
       toUnixTimestamp64Nano(Timestamp) + ifNull(DurationNs, 0), AgentVersion, RequestId, SideCall, _twin_id
FROM ({agent_twins.events(self.records, form, derived=False, twin_ids=True, scope=self.identity)})
ORDER BY TrialName, Timestamp, EventId
"""
            for form in agent_twins.FORMS
        }

    def _counted(self, form: int, signal: str) -> str:
        """The events read of one signal (no dropped twin: agent_twins.counted), their rows as `form` reads them."""
        return f"""SELECT * FROM {agent_twins.source(self.identity, form)}
        WHERE {self.identity} AND SourceTable = '{signal}'
          AND {agent_twins.counted(self.records, form, scope=self.identity)}"""

    @cached_property
    def spans(self) -> dict[int, str]:
        """The raw records of the spans among the events read: their traces' spans, within the first to last
        second of the events' traces (`span_traces`, bound: _WITHIN_TRACES)."""
        return {
            form: f"""
SELECT TraceId, SpanId, SpanAttributes, if(startsWith(SpanName, 'harbor.'), ResourceAttributes, map()),
       StatusMessage, arrayMap(t -> toUnixTimestamp64Nano(t), `Events.Timestamp`), `Events.Name`,
       `Events.Attributes`
FROM otel_traces
WHERE TraceId IN (SELECT DISTINCT TraceId FROM ({self._counted(form, "otel_traces")}))
  AND {_WITHIN_TRACES}
  AND {_RAW_TENANT}
"""
            for form in agent_twins.FORMS
        }

    @cached_property
    def logs(self) -> dict[int, str]:
        """Likewise, keyed by the agent event's own id: concurrent trials' events can share a service, an
        empty trace and a time."""
        return {
            form: f"""
SELECT {log_event_id_sql()}, Body, LogAttributes
FROM otel_logs
WHERE (ServiceName, TraceId, SpanId, Timestamp) IN (
        SELECT ServiceName, TraceId, SpanId, addNanoseconds(Timestamp, ifNull(DurationNs, 0))
        FROM ({self._counted(form, "otel_logs")}))
  AND {_RAW_TENANT}
"""
            for form in agent_twins.FORMS
        }

    def _twins(self, form: int, signal: str) -> str:
        """The dropped twins of one signal named by `{twins:Array(String)}` (their EventIds)."""
        return f"""SELECT * FROM {agent_twins.source(self.identity, form)}
        WHERE {self.identity} AND SourceTable = '{signal}' AND EventId IN {{twins:Array(String)}}"""

    @cached_property
    def twin_spans(self) -> dict[int, str]:
        """The attributes of the dropped twins that are spans."""
        return {
            form: f"""
SELECT SpanId, SpanAttributes FROM otel_traces
WHERE (TraceId, SpanId) IN (SELECT TraceId, SpanId FROM ({self._twins(form, "otel_traces")})) AND {_RAW_TENANT}
"""
            for form in agent_twins.FORMS
        }

    @cached_property
    def twin_logs(self) -> dict[int, str]:
        """The attributes of the dropped twins that are log records (their bodies are their own: Claude Code's
        names its event)."""
        return {
            form: f"""
SELECT {log_event_id_sql()}, LogAttributes FROM otel_logs
WHERE (ServiceName, TraceId, SpanId, Timestamp) IN (
        SELECT ServiceName, TraceId, SpanId, addNanoseconds(Timestamp, ifNull(DurationNs, 0))
        FROM ({self._twins(form, "otel_logs")}))
  AND {_RAW_TENANT}
"""
            for form in agent_twins.FORMS
        }


JOB, TRIAL = _Reads(_JOB), _Reads(_TRIAL)
_JOBS_OF_TRIAL = f"SELECT DISTINCT JobName FROM ({named(TRIAL.identity)}) WHERE {TRIAL.identity} ORDER BY JobName"


CARRIED_LOGS = f"""
SELECT EventName, ResourceAttributes['harbor.trial.name'], toUnixTimestamp64Nano(Timestamp),
       toUInt32OrZero(LogAttributes['{harbor_logs.PART}']), toUInt32OrZero(LogAttributes['{harbor_logs.PARTS}']), Body
FROM otel_logs
WHERE ScopeName = '{harbor_logs.SCOPE}' AND EventName IN ({", ".join(f"'{e}'" for e in harbor_logs.CARRIED)})
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
        form, names = agent_twins.bind(store.client.query(reads.form, parameters=params).result_rows[0])
        params = {**params, **names}
        rows = store.client.query(reads.events[form], parameters=params).result_rows
        spans: dict[tuple, tuple] = {}
        logs: dict[str, tuple] = {}
        if traces := list({r[1] for r in rows if r[4] == "otel_traces"}):
            spans = {
                (r[0], r[1]): r
                for r in store.client.query(reads.spans[form], parameters={**params, "span_traces": traces}).result_rows
            }
        if any(r[4] == "otel_logs" for r in rows):
            logs = {r[0]: r for r in store.client.query(reads.logs[form], parameters=params).result_rows}
        twins = _twin_content(store, reads, form, params, rows)
        trials: dict[str, TrialTelemetry] = {}
        for r in rows:
            event = _event(r, spans, logs, twins.get(r[34], {}))
            trials.setdefault(event.trial, TrialTelemetry(event.trial)).events.append(event)
    return trials


def _twin_content(store: Store, reads: _Reads, form: int, params: dict, rows: list[tuple]) -> dict[str, dict]:
    """The attributes of each dropped twin of the events read, by its EventId."""
    twins = {"otel_traces": [], "otel_logs": []}
    for r in rows:
        if r[34]:
            twins["otel_logs" if r[4] == "otel_traces" else "otel_traces"].append(r[34])
    found: dict[str, dict] = {}
    if twins["otel_traces"]:
        for span_id, attributes in store.client.query(
            reads.twin_spans[form], parameters={**params, "twins": twins["otel_traces"]}
        ).result_rows:
            found[span_id] = dict(attributes)  # a span's EventId is its span id
    if twins["otel_logs"]:
        for event_id, attributes in store.client.query(
            reads.twin_logs[form], parameters={**params, "twins": twins["otel_logs"]}
        ).result_rows:
            found[event_id] = dict(attributes)
    return found


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
