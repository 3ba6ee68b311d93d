"""Twins: one model call or tool call told by both signals, counted once when read.

Claude Code, Gemini CLI and Codex record a call both as a span and as a log event
(`claude_code.llm_request` + `api_request`, `claude_code.tool` + `tool_result`, Gemini `llm_call` +
`gemini_cli.api_response`, `tool_call` + `gemini_cli.tool_call`, Codex `handle_tool_call` +
`codex.tool_result`, ...). The agent views classify each record as it lands, one agent event per
record, so a trial that streams both signals has two agent events per call. Which records are
twins is only known once a trial's records are there, so every reader applies one rule when it reads:

    Within one trial (JobName, TrialName; rows without identity group by their NULLs), one
    ServiceName and one Kind, agent events from both otel_traces and otel_logs tell the same calls:
    the group keeps the signal with more rows, on a tie the spans (they carry the tree that
    sub-agent resolution needs, and measured timing); the other signal's rows are dropped.

A fact the kept record lacks is taken from its dropped twin (Claude Code's cost is only on the
events); missing stays NULL. Per call, where calls match exactly: by ToolCallId when both signals
of the group carry ids, else by time order when both have the same number of rows (Claude Code's
model calls: its span and event share only `request_id`, which is no agent_events column; with
equal counts the n-th span by start time is the n-th event by its inferred start). Unequal counts
match nothing per call, but totals (`per_group`) still take a fact from the twins when no kept row
of the group carries it. Token counts are one report: taken together from one record, never mixed.

Two forms of the same rule (both pure: they return SQL text):
- `events(where)`: agent_events rows, twins dropped, facts filled per call (readers that list calls);
- `per_group(where, aggregates)`: aggregates per twin group and signal, with `kept` (totals).
`where` must select whole groups (filters on tenant, job, trial, service, kind, derived rows):
the decision needs every row of a group, so readers filter on anything else outside.
"""

from storage.agent_rules import FACTS

SPANS, LOGS = "otel_traces", "otel_logs"
GROUP = "JobName, TrialName, ServiceName, Kind"
TOKENS = ("InputTokens", "CachedTokens", "CacheWriteTokens", "OutputTokens", "ReasoningTokens")

# Facts a kept record takes from its twin when it lacks them; a tuple is taken whole or not at all.
FILLED: tuple[tuple[str, ...], ...] = (
    ("CostUsd",), TOKENS, ("Model",), ("Provider",), ("HttpStatus",), ("ErrorType",), ("Success",),
    ("ToolName", "ToolCategory"), ("ToolCallId",), ("TargetPaths",),
)
_PROVENANCE_KEY = {f.column: f.name for f in FACTS if f.column} | {"ToolCategory": "tool_category",
                                                                   "TargetPaths": "target_paths"}


def kept_source(n_spans: str, n_logs: str) -> str:
    """The SourceTable a twin group keeps, from its row counts per signal: more rows wins, a tie
    keeps the spans. A group of one signal keeps that signal."""
    return f"if({n_logs} > {n_spans}, '{LOGS}', '{SPANS}')"


def _lacks(block: tuple[str, ...], twin: dict[str, str]) -> str:
    """Whether the kept row lacks `block`: absent, or (one fact) only inferred where the twin measured it
    (a span that merely ended is no evidence of success when its event says how the call went)."""
    first = block[0]
    if first == "TargetPaths":
        return "empty(TargetPaths)"
    absent = " AND ".join(f"isNull({c})" for c in block)
    key = _PROVENANCE_KEY.get(first)
    if len(block) > 1 or key is None:
        return absent
    return (f"({absent} OR (Provenance['{key}'] = 'inferred' AND "
            f"{twin['Provenance']}['{key}'] IN ('measured', 'derived')))")


def events(where: str) -> str:
    """agent_events rows matching `where` (whole twin groups), twins dropped, facts filled per call.
    A derived child record goes with its carrier (dropped with it). Same columns as agent_events;
    window stages over the matching rows only."""
    columns = [c for block in FILLED for c in block] + ["Provenance"]
    twin = {c: f"_twin.{i + 1}" for i, c in enumerate(columns)}
    takes = [f"_match IS NOT NULL AND _n_twins = 1 AND {_lacks(block, twin)} AS _take{i}"
             for i, block in enumerate(FILLED)]
    replaced = [f"if(_take{i}, {twin[c]}, {c}) AS {c}" for i, block in enumerate(FILLED) for c in block]
    # A fact taken from the twin comes with the twin's provenance.
    taken_keys = " OR ".join(
        f"(_take{i} AND k IN ({', '.join(repr(_PROVENANCE_KEY[c]) for c in block if c in _PROVENANCE_KEY)}))"
        for i, block in enumerate(FILLED))
    replaced.append(f"mapUpdate(Provenance, mapFilter((k, v) -> {taken_keys}, {twin['Provenance']})) AS Provenance")
    helpers = ["_spans", "_logs", "_span_ids", "_log_ids", "_nth", "_kept", "_match", "_twin", "_n_twins",
               "_carrier_dropped", *(f"_take{i}" for i in range(len(FILLED)))]
    return f"""
SELECT * EXCEPT ({", ".join(helpers)})
         REPLACE ({", ".join(replaced)})
FROM (
    SELECT *, {", ".join(takes)}
    FROM (
        SELECT *,
               anyIf(tuple({", ".join(columns)}), SourceTable != _kept) OVER same_call AS _twin,
               countIf(SourceTable != _kept) OVER same_call AS _n_twins,
               countIf(Provenance['kind'] != 'derived' AND SourceTable != _kept) OVER carrier AS _carrier_dropped
        FROM (
            SELECT *,
                   {kept_source("_spans", "_logs")} AS _kept,
                   -- what pairs a kept row with its twin: the call id when both signals carry ids,
                   -- else the row's rank by start time when both signals have as many rows; else nothing
                   multiIf(_spans = 0 OR _logs = 0, NULL,
                           _span_ids > 0 AND _log_ids > 0, ToolCallId,
                           _spans = _logs, toString(_nth), NULL) AS _match
            FROM (
                SELECT *,
                       countIf(SourceTable = '{SPANS}') OVER twin_group AS _spans,
                       countIf(SourceTable = '{LOGS}') OVER twin_group AS _logs,
                       countIf(SourceTable = '{SPANS}' AND ToolCallId IS NOT NULL) OVER twin_group AS _span_ids,
                       countIf(SourceTable = '{LOGS}' AND ToolCallId IS NOT NULL) OVER twin_group AS _log_ids,
                       row_number() OVER (PARTITION BY {GROUP}, SourceTable ORDER BY Timestamp, EventId) AS _nth
                FROM agent_events
                WHERE ({where})
                WINDOW twin_group AS (PARTITION BY {GROUP})
            )
        )
        WINDOW same_call AS (PARTITION BY {GROUP}, _match),
               -- a record and its derived child records (content it carried): they go together
               carrier AS (PARTITION BY TraceId, if(Provenance['kind'] = 'derived', ParentSpanId, EventId))
    )
)
WHERE SourceTable = _kept AND _carrier_dropped = 0"""


def per_group(where: str, aggregates: str, facts: tuple[tuple[str, ...], ...] = ()) -> str:
    """Agent events matching `where` (whole twin groups) aggregated per twin group and signal:
    JobName, TrialName, ServiceName, Kind, SourceTable, `n` (rows), `kept` (this signal's rows are
    the ones counted) and `aggregates` (SQL over agent_events rows, each `AS name`). `facts` names
    aggregates that are sums of a fact, in blocks taken together: a signal whose block is all NULL
    takes the group's (then the twin signal's) sums."""
    filled = []
    for block in facts:
        lacks = " AND ".join(f"isNull({name})" for name in block)
        filled += [f"if({lacks}, sum({name}) OVER twin_group, {name}) AS {name}" for name in block]
    replace = f" REPLACE ({', '.join(filled)})" if filled else ""
    return f"""
SELECT *{replace},
       SourceTable = {kept_source(f"sumIf(n, SourceTable = '{SPANS}') OVER twin_group",
                                  f"sumIf(n, SourceTable = '{LOGS}') OVER twin_group")} AS kept
FROM (
    SELECT {GROUP}, SourceTable, count() AS n, {aggregates}
    FROM agent_events
    WHERE ({where})
    GROUP BY {GROUP}, SourceTable
)
WINDOW twin_group AS (PARTITION BY {GROUP})"""
