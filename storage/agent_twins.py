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
of the group carry ids, else by RequestId when both carry those (Claude Code's model calls: its span
and its api_request event share only the provider's `request_id`), else by time order when both have
the same number of rows (the n-th span by start time is the n-th event by its inferred start).
Otherwise nothing matches per call, but totals (`per_group`) still take a fact from the twins when
no kept row of the group carries it. Token counts are one report: taken together from one record, never mixed.

A derived child record (content its carrier carried, `EventId` `<carrier>:<kind>:<n>`) counts in
its own kind's group and also goes with its carrier: it is dropped when its carrier is.

The rule in SQL (every function here is pure: it returns SQL text):
- `per_group(where, aggregates)`: aggregates per twin group and signal, with `kept` (trial totals);
- `events(where, twins)`: agent_events rows, twins dropped, facts filled per call (readers that list
  calls). Its SQL costs ~0.1 s of planning per statement, so a reader first asks `present(where)`
  (a GROUP BY over the same rows, a few ms) and reads `events(where, twins=False)`, the plain rows,
  when there are no twins.
`where` must select whole groups (filters on tenant, job, trial, service, kind, derived records):
the decision needs every row of a group, so readers filter on anything else outside.
"""

from storage.agent_identity import named
from storage.agent_rules import FACTS

SPANS, LOGS = "otel_traces", "otel_logs"
GROUP = "JobName, TrialName, ServiceName, Kind"
TOKENS = ("InputTokens", "CachedTokens", "CacheWriteTokens", "OutputTokens", "ReasoningTokens")

# Facts a kept record takes from its twin when it lacks them; a tuple is taken whole or not at all.
FILLED: tuple[tuple[str, ...], ...] = (
    ("CostUsd",), TOKENS, ("Model",), ("Provider",), ("HttpStatus",), ("ErrorType",), ("Success",),
    ("ToolName", "ToolCategory"), ("ToolCallId",), ("TargetPaths",), ("RequestId",),
)
_PROVENANCE_KEY = {f.column: f.name for f in FACTS if f.column} | {"ToolCategory": "tool_category",
                                                                   "TargetPaths": "target_paths"}


def kept_source(n_spans: str, n_logs: str) -> str:
    """The SourceTable a twin group keeps, from its row counts per signal: more rows wins, a tie
    keeps the spans. A group of one signal keeps that signal."""
    return f"if({n_logs} > {n_spans}, '{LOGS}', '{SPANS}')"


def _lacks(block: tuple[str, ...], twin: dict[str, str], t: str = "") -> str:
    """Whether the kept row lacks `block`: absent, or (one fact) only inferred where the twin measured it
    (a span that merely ended is no evidence of success when its event says how the call went)."""
    first = block[0]
    if first == "TargetPaths":
        return f"empty({t}TargetPaths)"
    absent = " AND ".join(f"isNull({t}{c})" for c in block)
    key = _PROVENANCE_KEY.get(first)
    if len(block) > 1 or key is None:
        return absent
    return (f"({absent} OR ({t}Provenance['{key}'] = 'inferred' AND "
            f"{twin['Provenance']}['{key}'] IN ('measured', 'derived')))")


def _key_parts(t: str = "", kind: bool = True) -> list[str]:
    """A row's twin group, as IN compares it (NULL never equals NULL there: the nulls are spelled out).
    Without the kind: the identity and service a derived record shares with its carrier."""
    parts = [f"isNull({t}JobName)", f"ifNull({t}JobName, '')", f"isNull({t}TrialName)", f"ifNull({t}TrialName, '')",
             f"{t}ServiceName"]
    return parts + [f"{t}Kind"] if kind else parts


def _key(table: str = "", kind: bool = True) -> str:
    return ", ".join(_key_parts(table, kind))


def _dropped(where: str, src: str) -> str:
    """(group, SourceTable) of the signal each twin group drops, among the rows `where` selects."""
    spans, logs = f"countIf(SourceTable = '{SPANS}')", f"countIf(SourceTable = '{LOGS}')"
    return f"""
        SELECT {_key()}, if({kept_source(spans, logs)} = '{LOGS}', '{SPANS}', '{LOGS}')
        FROM {src} WHERE ({where})
        GROUP BY {GROUP} HAVING {spans} > 0 AND {logs} > 0"""


# A derived child record's EventId is `<its carrier's EventId>:<kind>:<n>`; no record's own id has a
# colon (span ids and log event hashes are hex). Cheaper than Provenance['kind'] = 'derived'.
_DERIVED = "position(EventId, ':') > 0"


def _not_dropped(where: str, src: str, derived: bool) -> str:
    """A condition on agent_events rows: not a dropped twin, nor (when `derived` records may be among
    the rows) a derived child record of one. `where` selects the rows the groups are decided over."""
    rows = f"({_key()}, SourceTable) NOT IN ({_dropped(where, src)})"
    if not derived:
        return rows
    carrier = f"{_key(kind=False)}, TraceId"
    return f"""{rows}
    AND NOT ({_DERIVED} AND ({carrier}, ParentSpanId) IN (
        SELECT {carrier}, EventId FROM {src}
        WHERE EventId IN (SELECT ParentSpanId FROM {src} WHERE ({where}) AND {_DERIVED})
          AND ({where}) AND ({_key()}, SourceTable) IN ({_dropped(where, src)})))"""


def _pairs(where: str, src: str) -> str:
    """Each kept row of a twin group that pairs with exactly one dropped row: the group (`_k0`...),
    its EventId and the dropped row's (`_twin_id`). By call id when both signals of the group carry
    ids, else by request id likewise, else by time order when both have as many rows; only the rows of
    twin groups are ranked."""
    spans, logs = f"SourceTable = '{SPANS}'", f"SourceTable = '{LOGS}'"
    return f"""
        SELECT {", ".join(f"{k} AS _k{i}" for i, k in enumerate(_key_parts()))}, EventId, _twin_id
        FROM (
            SELECT *, anyIf(EventId, SourceTable != _kept) OVER same_call AS _twin_id,
                   countIf(SourceTable != _kept) OVER same_call AS _n_twins
            FROM (
                SELECT {GROUP}, SourceTable, EventId, _kept,
                       multiIf(_by_id, ToolCallId, _by_request, RequestId, _by_order, toString(row_number() OVER (
                           PARTITION BY {GROUP}, SourceTable ORDER BY Timestamp, EventId)), NULL) AS _match
                FROM (
                    SELECT {GROUP}, SourceTable, EventId, Timestamp, ToolCallId, RequestId,
                           {kept_source("_spans", "_logs")} AS _kept,
                           _span_ids > 0 AND _log_ids > 0 AS _by_id,
                           _span_requests > 0 AND _log_requests > 0 AS _by_request, _spans = _logs AS _by_order
                    FROM {src}
                    -- (each row's group counts; only groups of both signals)
                    INNER JOIN (
                        SELECT {GROUP}, countIf({spans}) AS _spans, countIf({logs}) AS _logs,
                               countIf({spans} AND ToolCallId IS NOT NULL) AS _span_ids,
                               countIf({logs} AND ToolCallId IS NOT NULL) AS _log_ids,
                               countIf({spans} AND RequestId IS NOT NULL) AS _span_requests,
                               countIf({logs} AND RequestId IS NOT NULL) AS _log_requests
                        FROM {src} WHERE ({where})
                        GROUP BY {GROUP} HAVING _spans > 0 AND _logs > 0
                    ) AS _g USING ({GROUP})
                    WHERE ({where})
                )
            )
            WINDOW same_call AS (PARTITION BY {GROUP}, _match)
        )
        WHERE SourceTable = _kept AND _match IS NOT NULL AND _n_twins = 1"""


def _with_facts(rows: str, where: str, src: str, twin_ids: bool = False) -> str:
    """`rows` (a SELECT of agent_events rows, all columns, twins dropped) with each kept row's missing
    facts taken from the dropped twin it pairs with. `where` selects the rows the pairs are found in.
    twin_ids: also `_twin_id`, the EventId of that twin ('' for a row without one)."""
    columns = [c for block in FILLED for c in block]
    twin = {c: f"_t_{c}" for c in columns + ["Provenance"]}
    takes = [f"_paired AND {_lacks(block, twin)} AS _take{i}" for i, block in enumerate(FILLED)]
    replaced = [f"if(_take{i}, {twin[c]}, {c}) AS {c}" for i, block in enumerate(FILLED) for c in block]
    # A fact taken from the twin comes with the twin's provenance.
    taken = ", ".join(f"if(_take{i}, [{', '.join(repr(_PROVENANCE_KEY[c]) for c in block)}], [])"
                      for i, block in enumerate(FILLED))
    replaced.append(f"if(_paired, mapUpdate(Provenance, mapFilter((k, v) -> has(arrayConcat({taken}), k), "
                    f"_t_Provenance)), Provenance) AS Provenance")
    n = len(_key_parts())
    pair_key, twin_key, row_key = (", ".join(f"{prefix}{i}" for i in range(n)) for prefix in ("_p._k", "_tk", "_f._k"))
    helpers = ["_paired", *([] if twin_ids else ["_twin_id"]), *twin.values(), *(f"_take{i}" for i in range(len(FILLED)))]
    return f"""
SELECT * EXCEPT ({", ".join(helpers)}) REPLACE ({", ".join(replaced)})
FROM (
    SELECT *, {", ".join(takes)}
    FROM (
        SELECT _e.*, _f.* EXCEPT ({", ".join(f"_k{i}" for i in range(n))}, EventId)
        FROM ({rows}) AS _e
        LEFT JOIN (
            SELECT _p.*, true AS _paired, {", ".join(f"_t.{c}" for c in twin.values())}
            FROM ({_pairs(where, src)}) AS _p
            INNER JOIN (
                SELECT {", ".join(f"{k} AS _tk{i}" for i, k in enumerate(_key_parts()))}, EventId AS _t_id,
                       {", ".join(f"{c} AS {twin[c]}" for c in columns + ["Provenance"])}
                FROM {src} WHERE ({where}) AND ({_key()}, SourceTable) IN ({_dropped(where, src)})
            ) AS _t ON ({pair_key}, _p._twin_id) = ({twin_key}, _t._t_id)
        ) AS _f ON ({_key("_e.")}, _e.EventId) = ({row_key}, _f.EventId)
    )
)"""


def _source(scope: str) -> str:
    """The rows the rule is decided over: agent_events named after their trials (storage/agent_identity.py)."""
    return f"({named(scope)}\n) AS _named_rows"


def present(where: str, *, scope: str) -> str:
    """SQL with one row when the rows `where` selects hold a twin group, none otherwise."""
    return f"""
SELECT 1 FROM {_source(scope)} WHERE ({where})
GROUP BY {GROUP} HAVING countIf(SourceTable = '{SPANS}') > 0 AND countIf(SourceTable = '{LOGS}') > 0
LIMIT 1"""


def events(where: str, twins: bool = True, derived: bool = True, twin_ids: bool = False, *, scope: str) -> str:
    """agent_events rows matching `where` (whole twin groups), named after their trials: twins dropped,
    facts filled per call. Same columns as agent_events. `scope`: the identity part of `where`
    (storage/agent_identity.py). twins=False: the rows as they are (`present` found no twins).
    derived=False: `where` selects no derived records (they are only of kinds reasoning, output and
    user_message), so none is looked up for its carrier (it saves ~60 ms of planning).
    twin_ids: one more column, `_twin_id`: the EventId of the dropped twin a row pairs with, else ''
    (whoever already showed that twin knows the call)."""
    src = _source(scope)
    rows = f"SELECT * FROM {src} WHERE ({where})"
    if not twins:
        return f"SELECT *, '' AS _twin_id FROM {src} WHERE ({where})" if twin_ids else rows
    return _with_facts(f"{rows} AND {_not_dropped(where, src, derived)}", where, src, twin_ids)


def per_group(where: str, aggregates: str, facts: tuple[tuple[str, ...], ...] = (), *, scope: str) -> str:
    """Agent events matching `where` (whole twin groups), named after their trials, aggregated per twin
    group and signal: JobName, TrialName, ServiceName, Kind, SourceTable, `n` (rows), `kept` (this
    signal's rows are the ones counted) and `aggregates` (SQL over agent_events rows, each `AS name`).
    `scope`: the identity part of `where`. `facts` names aggregates that are sums of a fact, in blocks
    taken together: a signal whose block is all NULL takes the group's (then the twin signal's) sums."""
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
    FROM {_source(scope)}
    WHERE ({where})
    GROUP BY {GROUP}, SourceTable
)
WINDOW twin_group AS (PARTITION BY {GROUP})"""
