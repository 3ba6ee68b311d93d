"""The SQL that reads tool decisions within a time range, in time order:
- DECISIONS: log events (harborlight.agent.rules.TOOL_DECISIONS) on given tool call ids, each with the
  job and trial it belongs to, read with the same aliases in the same order as the agent views do;
- SPAN_DECISIONS: child spans of given tool spans that carry their decision (TOOL_DECISION_SPANS)."""

from harborlight.agent.compile import alias_sql  # how the agent views read one alias of a record
from harborlight.agent.rules import FACTS, TOOL_DECISION_SPANS, TOOL_DECISIONS
from harborlight.agent.sources import LOGS
from harborlight.agent.sql_parts import lit, one_of
from harborlight.read.statements.tenancy import RAW_TENANT_FILTER


def _string_fact(name: str) -> str:
    """A string fact of a log record: the first of its aliases present, else NULL (a decision has no kind of
    its own, `_kind` '': named after its process as the call it decides on)."""
    fact = next(f for f in FACTS if f.name == name)
    values = [raw for raw in (alias_sql(a, LOGS) for a in fact.aliases) if raw is not None]
    return f"coalesce({', '.join(f'nullIf({v}, {lit("")})' for v in values)})"


def _per_name(name: str, attributes: str, table: tuple[tuple[str, ...], ...], column: int) -> str:
    """An attribute of a decision, read under the key its own record's name uses (`table` column)."""
    branches = ", ".join(f"{name} = {lit(row[0])}, {attributes}[{lit(row[column])}]" for row in table)
    return f"multiIf({branches}, '')"


def _per_event(column: int) -> str:
    return _per_name("_name", "_a", TOOL_DECISIONS, column)


_ID_KEYS = sorted({row[1] for row in TOOL_DECISIONS})

DECISIONS = f"""
SELECT {_per_event(1)} AS call_id, {_string_fact("job")} AS job, {_string_fact("trial")} AS trial, ServiceName,
       {_per_event(2)} AS decision, nullIf({_per_event(3)}, '') AS decision_source
FROM (
    SELECT {", ".join(LOGS.inner + LOGS.named)}, '' AS _kind
    FROM otel_logs
    WHERE {RAW_TENANT_FILTER}
      AND Timestamp >= fromUnixTimestamp64Nano({{since:Int64}})
      AND Timestamp <= fromUnixTimestamp64Nano({{until:Int64}})
      AND ({" OR ".join(f"LogAttributes[{lit(k)}] IN {{ids:Array(String)}}" for k in _ID_KEYS)})
)
WHERE {one_of("_name", tuple(row[0] for row in TOOL_DECISIONS))}
  AND call_id IN {{ids:Array(String)}} AND decision != ''
ORDER BY Timestamp
"""


def _per_span(column: int) -> str:
    return _per_name("SpanName", "SpanAttributes", TOOL_DECISION_SPANS, column)


SPAN_DECISIONS = f"""
SELECT TraceId, ParentSpanId, {_per_span(1)} AS decision, nullIf({_per_span(2)}, '') AS decision_source
FROM otel_traces
WHERE {RAW_TENANT_FILTER}
  AND Timestamp >= fromUnixTimestamp64Nano({{since:Int64}})
  AND Timestamp <= fromUnixTimestamp64Nano({{until:Int64}})
  AND {one_of("SpanName", tuple(row[0] for row in TOOL_DECISION_SPANS))}
  AND ParentSpanId IN {{span_ids:Array(String)}} AND decision != ''
ORDER BY Timestamp
"""
