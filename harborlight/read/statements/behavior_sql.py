"""The SQL that fetches one trial's tool calls and model calls, in time order.

The calls are the trial's resolved events (harborlight/read/statements/resolved_sql.py: each call once, named after
its trial), one key range. A tool call's argument digest (to tell an exact repeat from a different call of the same
tool) is read from the raw span or log record, using the argument aliases of the rule table.
"""

from harborlight.agent.rules import FACTS
from harborlight.agent.sources import log_event_id_sql
from harborlight.read.statements.resolved_sql import ONE_TRIAL
from harborlight.read.statements.tenancy import AGENT_TENANT_FILTER, RAW_TENANT_FILTER
from harborlight.read.statements.trial_rows_sql import LIFECYCLE_SPANS, within_trials
from harborlight.sql_text import Sql, literals

ARGUMENT_KEYS = next(f for f in FACTS if f.name == "arguments").aliases


def _arguments(attributes: str) -> str:
    """The first non-empty argument attribute of a raw row, else ''."""
    picks = ", ".join(f"nullIf({attributes}['{a.key}'], '')" for a in ARGUMENT_KEYS)
    return f"coalesce({picks}, '')"


_CALL_FILTER = f"""{AGENT_TENANT_FILTER} AND NOT OuterTelling
      AND {ONE_TRIAL}
      AND ({{job:String}} = '' OR JobKey = {{job:String}})"""

_TOOLS = f"{_CALL_FILTER} AND Kind = 'tool'"


def _within_tools(table: str, service: str, name: str | None = None) -> str:
    """The raw table's rows in the primary-key range of the trial's tool records (`tools`): their services
    (and span names), between their first and last raw time. Both raw tables lead their ORDER BY with
    these columns, so the look-up reads the trial's granules, not a bloom check over every granule. One
    scalar subquery per table, the same text each time so the engine evaluates it once."""
    names = ", groupUniqArray(Name)" if name else ""
    bounds = (
        f"(SELECT (min(raw_ts), max(raw_ts), groupUniqArray(ServiceName){names}) "
        f"FROM tools WHERE SourceTable = '{table}')"
    )
    named = f" AND has(tupleElement({bounds}, 4), {name})" if name else ""
    return (
        f"has(tupleElement({bounds}, 3), {service}){named}"
        f" AND Timestamp >= tupleElement({bounds}, 1) AND Timestamp <= tupleElement({bounds}, 2)"
    )


# The raw records are looked up by the trial's tool calls (`tools`, a plain range read); each call meets its own
# record by its event id (a log record's is the logs view's hash over it: concurrent trials' events can share a
# service, no trace, a time).
TOOL_CALLS = f"""
WITH tools AS (
    SELECT SourceTable, TraceId, SpanId, ServiceName, Name,
           if(SourceTable = 'otel_logs', coalesce(EndTimestamp, Timestamp), Timestamp) AS raw_ts
    FROM resolved_events FINAL WHERE {_TOOLS}
)
SELECT c.ts, c.ToolName, c.ToolCategory, c.TargetPaths, c.Success, c.SuccessHow, c.ToolCallId,
       if(a.args = '', NULL, lower(hex(cityHash64(a.args)))) AS args_key
FROM (
    SELECT EventId, SourceTable, TraceId,
           toUnixTimestamp64Nano(Timestamp) AS ts, ToolName, ToolCategory, TargetPaths, Success,
           Provenance['success'] AS SuccessHow, ToolCallId
    FROM resolved_events FINAL
    WHERE {_TOOLS} AND coalesce(ToolName, '') != ''
) AS c
ANY LEFT JOIN (
    SELECT 'otel_traces' AS source, TraceId, SpanId AS event_id, {_arguments("SpanAttributes")} AS args
    FROM otel_traces
    WHERE {RAW_TENANT_FILTER}
      AND {_within_tools("otel_traces", "ServiceName", "SpanName")}
      AND TraceId IN (SELECT TraceId FROM tools WHERE SourceTable = 'otel_traces')
      AND SpanId IN (SELECT SpanId FROM tools WHERE SourceTable = 'otel_traces')
    UNION ALL
    SELECT 'otel_logs' AS source, TraceId, {log_event_id_sql()} AS event_id, {_arguments("LogAttributes")} AS args
    FROM otel_logs
    WHERE {RAW_TENANT_FILTER}
      AND {_within_tools("otel_logs", "ServiceName")}
      AND Timestamp IN (SELECT raw_ts FROM tools WHERE SourceTable = 'otel_logs')
      AND {_arguments("LogAttributes")} != ''
) AS a ON a.source = c.SourceTable AND a.TraceId = c.TraceId AND a.event_id = c.EventId
ORDER BY c.ts, c.EventId
LIMIT {{limit:UInt32}}
"""

_MODEL = f"{_CALL_FILTER} AND Kind = 'llm_request'"
MODEL_CALLS = f"""
SELECT toUnixTimestamp64Nano(Timestamp) AS ts, InputTokens, CachedTokens, CacheWriteTokens, OutputTokens,
       ReasoningTokens, CostUsd, HttpStatus, ErrorType
FROM resolved_events FINAL
WHERE {_MODEL}
ORDER BY Timestamp, EventId
LIMIT {{limit:UInt32}}
"""

# The task's gold patch (a unified diff), as the harness or importer put it on a lifecycle span of the
# trial, read within the trial's key range (within_trials): the reference localization is measured against. '' when
# none was recorded.
GOLD_PATCH_KEY = "harbor.task.gold_patch"  # harborlight/transfer/gold_patch.py writes it
GOLD_PATCH = f"""
SELECT argMaxIf(SpanAttributes['{GOLD_PATCH_KEY}'], Timestamp, SpanAttributes['{GOLD_PATCH_KEY}'] != '')
FROM otel_traces
WHERE {RAW_TENANT_FILTER}
  AND SpanName IN {literals(LIFECYCLE_SPANS)}
  AND ResourceAttributes['harbor.trial.name'] = {{trial:String}}
  AND ({{job:String}} = '' OR ResourceAttributes['harbor.job.name'] = {{job:String}})
  AND {within_trials(Sql("TrialName = {trial:String}"), Sql("({job:String} = '' OR JobName = {job:String})")).text}
"""
