"""The raw tables the agent views read, and how each presents a record to the convention rules."""

from dataclasses import dataclass

from harborlight.agent import rules
from harborlight.agent.rule_types import Source
from harborlight.agent.sql_parts import event_name_sql, lit

_STRING_MAP = "'Map(String, String)'"  # one cast per row; lookups on LowCardinality keys cost ~7x more


def _non_empty(column: str) -> str:
    """The attributes with a value: an empty value reads as absent anyway, and presence becomes a key test."""
    return f"mapFilter((k, v) -> v != '', CAST({column}, {_STRING_MAP}))"


# A command's exit code says how its call went: 0 succeeded, anything else failed.
_EXIT_STATUS = "multiIf(isNull(_f_exit_code), '', _f_exit_code = 0, 'true', 'false')"

# The process a record of the agent's work came from, as its resource names it: service.instance.id is unique
# only within its service (OpenTelemetry's resource conventions), so it is read with the service's name. A step
# of no agent (kind group) has none: a process's own steps (an HTTP server's requests, Codex's initialize)
# make no run of their own.
INSTANCE_KEY = "service.instance.id"
_PROCESS = f"if(_kind = 'group' OR _r[{lit(INSTANCE_KEY)}] = '', '', concat(ServiceName, '/', _r[{lit(INSTANCE_KEY)}]))"


@dataclass(frozen=True)
class Context:
    """How one raw table presents a record to the rules (expressions over its inner SELECT)."""

    source: Source
    table: str
    mv: str
    inner: tuple[str, ...]  # raw columns passed through, plus helper aliases
    named: tuple[str, ...]  # helper columns computed from `inner` (the next stage)
    columns: dict[str, str | None]  # @-values of Alias keys (String, '' = absent); None = the table has none
    root: str | None
    correlated: str | None
    outer: tuple[tuple[str, str], ...]  # (agent_events column, expression) besides the facts


def _span_attributes() -> str:
    """The span's attributes over those of its events named in rules.SPAN_EVENTS_AS_ATTRIBUTES."""
    events = (
        f"arrayFilter((a, n) -> n IN ({', '.join(map(lit, rules.SPAN_EVENTS_AS_ATTRIBUTES))}), "
        f"`Events.Attributes`, `Events.Name`)"
    )
    carried = (
        f"mapFromArrays(arrayFlatten(arrayMap(m -> CAST(mapKeys(m), 'Array(String)'), {events})), "
        f"arrayFlatten(arrayMap(m -> mapValues(m), {events})))"
    )
    return f"if(empty(`Events.Name`), {_non_empty('SpanAttributes')}, mapUpdate({carried}, {_non_empty('SpanAttributes')}))"


TRACES = Context(
    source="span",
    table="otel_traces",
    mv="agent_events_traces_mv",
    inner=(
        "Timestamp",
        "TraceId",
        "SpanId",
        "ParentSpanId",
        "ServiceName",
        "ScopeName",
        "Duration",
        "StatusCode",
        "StatusMessage",
        "SpanName AS _name",
        f"{_span_attributes()} AS _a",
        f"CAST(ResourceAttributes, {_STRING_MAP}) AS _r",
        "`Events.Name` AS _event_names",
        "CAST(`Events.Attributes`, 'Array(Map(String, String))') AS _event_attributes",
    ),
    named=(),
    columns={
        "trace_id": "TraceId",
        "process": _PROCESS,
        "name": "_name",
        "span_status": "multiIf(StatusCode = 'Error', 'false', StatusCode = 'Ok', 'true', '')",
        "span_ended": "if(StatusCode = 'Unset', 'true', '')",
        "status_message": "if(StatusCode = 'Error', substring(StatusMessage, 1, 3), '')",
        "rate_limit_status": f"if(StatusCode = 'Error' AND match(StatusMessage, {lit(rules.RATE_LIMIT_MESSAGE)}), '429', '')",
        "http_error": "if(_f_http_status >= 400, 'false', '')",
        "exit_status": _EXIT_STATUS,
        # a tool's arguments as its span's gen_ai.tool.message event tells them (GenAI 1.30 as span events)
        "tool_message_event": f"_event_attributes[arrayLastIndex(n -> n = {lit(rules.TOOL_MESSAGE_EVENT)}, "
        "_event_names)]['content']",
    },
    root="ParentSpanId = ''",
    correlated=None,
    outer=(
        ("Timestamp", "Timestamp"),
        ("EndTimestamp", "addNanoseconds(Timestamp, Duration)"),
        ("DurationNs", "Duration"),
        (
            "TimingQuality",
            f"if(ScopeName IN ({', '.join(map(lit, rules.INFERRED_TIMING_SCOPES))}), 'inferred', 'measured')",
        ),
        ("EventId", "SpanId"),
        ("SpanId", "SpanId"),
        ("ParentSpanId", "ParentSpanId"),
        ("SourceTable", "'otel_traces'"),
    ),
)


def log_event_id_sql() -> str:
    """The EventId the logs view gives an otel_logs row, over the row's own columns: readers that join
    an agent event back to its log record match on it (a timestamp alone is shared by concurrent trials)."""
    return (
        f"lower(hex(sipHash64(TraceId, SpanId, Timestamp, {event_name_sql('LogAttributes')}, "
        f"CAST(LogAttributes, {_STRING_MAP}))))"
    )


_LOG_DURATION = f"toFloat64OrNull(_a[{lit(rules.LOG_DURATION_KEY)}])"
LOGS = Context(
    source="log",
    table="otel_logs",
    mv="agent_events_logs_mv",
    inner=(
        "Timestamp",
        "Timestamp AS _logged_at",
        "TraceId",
        "SpanId",
        "ServiceName",
        "ScopeName",
        "Body",
        "EventName",
        f"CAST(LogAttributes, {_STRING_MAP}) AS _attributes",
        f"{_non_empty('LogAttributes')} AS _a",
        f"CAST(ResourceAttributes, {_STRING_MAP}) AS _r",
    ),
    named=(f"{event_name_sql()} AS _name", f"{_LOG_DURATION} AS _duration_ms"),
    columns={
        "trace_id": "TraceId",
        "process": _PROCESS,
        "name": "_name",
        "span_status": None,
        "span_ended": None,
        "status_message": None,
        "rate_limit_status": None,
        "http_error": "if(_f_http_status >= 400, 'false', '')",
        "exit_status": _EXIT_STATUS,
        "tool_message_event": None,
    },
    root=None,
    correlated="SpanId != ''",
    outer=(
        # A log event is written when the work ends: its start is the record's time minus the duration.
        # (_logged_at, because the output column Timestamp shadows the input one in this SELECT.)
        (
            "Timestamp",
            "if(isNull(_duration_ms), _logged_at, "
            "subtractNanoseconds(_logged_at, toInt64(assumeNotNull(_duration_ms) * 1000000)))",
        ),
        ("EndTimestamp", "if(isNull(_duration_ms), NULL, _logged_at)"),
        ("DurationNs", "toUInt64(_duration_ms * 1000000)"),
        ("TimingQuality", "if(isNull(_duration_ms), 'unknown', 'inferred')"),
        # (Computed in the last inner stage, as `_id`, where Timestamp is still the record's own time;
        # log_event_id_sql is the same over the raw row: tests/importers/test_store_read_twins.py.)
        ("EventId", "lower(hex(sipHash64(TraceId, SpanId, Timestamp, _name, _attributes)))"),
        ("SpanId", "SpanId"),
        ("ParentSpanId", "''"),
        ("SourceTable", "'otel_logs'"),
    ),
)

CONTEXTS = (TRACES, LOGS)
