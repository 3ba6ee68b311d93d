"""Twins: one model call or tool call told by both signals, counted once.

Claude Code, Gemini CLI and Codex record a call both as a span and as a log event
(`claude_code.llm_request` + `api_request`, `claude_code.tool` + `tool_result`, Gemini `llm_call` +
`gemini_cli.api_response`, `tool_call` + `gemini_cli.tool_call`, Codex `handle_tool_call` +
`codex.tool_result`, ...). The agent views classify each record as it lands, one agent event per
record, so a trial that streams both signals has two agent events per call. Which records are
twins is only known once a trial's records are there, so the keeper applies one rule whenever a trial's records
change, and writes what it decides as the trial's resolved events (harborlight/read/statements/resolved_sql.py),
which every reader selects:

    Within one tenant, one trial (JobName, TrialName; rows without identity group by their NULLs), one
    ServiceName and one Kind, a span and a log event are twins when they pair: by ToolCallId when
    both signals of the group carry call ids, else by RequestId when both carry those (Claude Code's
    model calls: its span and its api_request event share only the provider's `request_id`), else by
    time order when both signals have as many rows (the n-th span by start time is the n-th event by
    its inferred start). Records with different ids are never the same call. Of each pair one is kept:
    the one of the signal with more rows in the group, on a tie the span (it carries the tree that
    sub-agent resolution needs, and measured timing). Every record that pairs with nothing counts.

A fact the kept record lacks is taken from its twin (Claude Code's cost is only on the events);
missing stays NULL. Token counts are one report: taken together from one record, never mixed, from
the record whose report tells more counts. A call either record saw fail failed.

A trial told twice, by the agent's live telemetry and by its trajectory retold after the fact (a Harbor
job directory imported, harbor traces export: records of the TRAJECTORY_SCOPES), counts each call once:

    Within one tenant, one trial and one Kind, a retold record (but an agent span, the retold
    trajectory's head) does not count when a service other than its own (the agent's, not the
    harness's) tells records of that kind: the live records are
    measured as the calls happened. A kind only the trajectory tells counts from it (text an agent did
    not stream, tool calls of a trial that streamed only its model calls); such records name the
    retelling in their ScopeName.

A user message told again, as history a later model call replays (GenAI 1.30's gen_ai.user.message events,
REPLAYED_MESSAGES: each call logs every message of its input), is no new turn:

    Within one tenant, one trial and one service, the model calls that log such messages (a call: the
    span they were emitted in, TraceId and SpanId) are taken in the order they began; of a call's user
    messages (in time order) the first n are those of the call before it (n: how many that call told), the
    history, and do not count; the rest are the user's new turns.

So a prompt and its tool loop is one user message however many calls replay it, and a second prompt in the
same conversation is a second. (A history a framework cut shorter than the call before it had hides that
many new turns: no producer seen does so.)

A model call told at two levels, by a framework's span and by the model client's span inside it (openai-agents'
`response` span over the OpenAI instrumentation's, OpenInference LLM over LLM), is one call:

    Within one tenant and trace (and one job and trial where both spans name theirs: a trace sent again under
    another trial is a run of its own), an llm_request span whose direct child is an llm_request span of another
    instrumentation (ScopeName) telling the same request (the same request id; or the same input and output
    tokens; or no token count of its own, a wrapper) does not count, nor do the records derived from it: the inner
    span is the client's measurement of the call. (One instrumentation's nested calls are calls of their own.)
    A bare wrapper (no model, token count or status of its own: opencode's LLM.run) is no call of its own over
    any llm_request span directly under it or under a child of it that is no call (the AI SDK's ai.streamText
    > ai.streamText.doStream), whatever its instrumentation.

A tool call told by two spans (opencode's Tool.execute, its executor's, and the AI SDK's ai.toolCall, the model
call's) is one:

    Within one tenant, trace, job and trial, of the tool spans carrying the same call id, the one that carries the
    call's arguments counts (of several alike, the earliest); the others do not.

A derived child record (content its carrier carried, `EventId` `<carrier>:<kind>:<n>`) counts in
its own kind's group and also goes with its carrier: it is dropped when its carrier is.

The rule in SQL (every function here is pure: it takes and returns fragments, harborlight/sql_text.py `Sql`, so a
statement made of them names every parameter its conditions need, and whoever runs it binds them by name):
- `events(where, form, scope=)`: agent_events rows, twins dropped, facts filled per call (readers that
  list calls). Its SQL costs ~0.1 s of planning per statement (~0.5 s with the rows named after their
  trials first), so a reader first asks `form(where)` (a few ms) and reads the plain rows (PLAIN) when
  there are no twins and no record to rename, TWINS when there are twins only, else NAMED;
- `per_group(where, aggregates, form, scope=)`: those rows aggregated per twin group (trial totals);
- `counted(where, form, scope=)`: the condition that a row is one of them (which raw records to read).
`where` must select whole groups (filters on tenant, job, trial, service, kind, derived records):
the decision needs every row of a group, so readers filter on anything else outside. `scope` is its
identity part: the rows are named after their trials first (harborlight/agent/identity.py).
"""

from typing import Any

from harborlight.agent import identity as agent_identity
from harborlight.agent.rules import FACTS, REPLAYED_MESSAGES, TRAJECTORY_SCOPES
from harborlight.sql_text import Sql, literal, literals

SPANS, LOGS = "otel_traces", "otel_logs"
GROUP = "Tenant, JobName, TrialName, ServiceName, Kind"
TOKENS = ("InputTokens", "CachedTokens", "CacheWriteTokens", "OutputTokens", "ReasoningTokens")

# Facts a kept record takes from its twin when it lacks them; a tuple is taken whole or not at all.
FILLED: tuple[tuple[str, ...], ...] = (
    ("CostUsd",),
    TOKENS,
    ("Model",),
    ("Provider",),
    ("HttpStatus",),
    ("ErrorType",),
    ("Success",),
    ("ToolName", "ToolCategory"),
    ("ToolCallId",),
    ("TargetPaths",),
    ("RequestId",),
    ("SideCall",),
)
_PROVENANCE_KEY = {f.column: f.name for f in FACTS if f.column} | {
    "ToolCategory": "tool_category",
    "TargetPaths": "target_paths",
}


def kept_source(n_spans: str, n_logs: str) -> str:
    """The SourceTable whose record of each pair a twin group keeps, from its row counts per signal:
    more rows wins, a tie keeps the spans."""
    return f"if({n_logs} > {n_spans}, '{LOGS}', '{SPANS}')"


def _lacks(block: tuple[str, ...], twin: dict[str, str], t: str = "") -> str:
    """Whether the kept row takes `block` from its twin, which tells more of it: the kept row lacks it
    (absent, or one fact only inferred where the twin measured it: a span that merely ended is no evidence
    of success when its event says how the call went); of several facts (a token report), the twin's
    tells more of them (Gemini CLI's api_response event its cached and reasoning tokens, its llm_call
    span neither); of the outcome, the twin saw the call fail (Gemini CLI's tool_call span ends Ok on a
    command that exited 1, its event tells the exit code)."""
    first = block[0]
    if first == "TargetPaths":
        return f"empty({t}TargetPaths)"
    if len(block) > 1:
        return (
            " + ".join(f"isNotNull({twin[c]})" for c in block) + " > " + " + ".join(f"isNotNull({t}{c})" for c in block)
        )
    absent = f"isNull({t}{first})"
    if first == "Success":
        absent = f"({absent} OR {twin[first]} = false)"
    key = _PROVENANCE_KEY.get(first)
    if key is None:
        return absent
    return (
        f"({absent} OR ({t}Provenance['{key}'] = 'inferred' AND "
        f"{twin['Provenance']}['{key}'] IN ('measured', 'derived')))"
    )


def _key_parts(t: str = "", kind: bool = True) -> list[str]:
    """A row's twin group, as IN compares it (NULL never equals NULL there: the nulls are spelled out).
    Without the kind: the identity and service a derived record shares with its carrier. A tenant's
    records never pair with another's, whatever identity they claim."""
    parts = [
        f"{t}Tenant",
        f"isNull({t}JobName)",
        f"ifNull({t}JobName, '')",
        f"isNull({t}TrialName)",
        f"ifNull({t}TrialName, '')",
        f"{t}ServiceName",
    ]
    return parts + [f"{t}Kind"] if kind else parts


def _key(table: str = "", kind: bool = True) -> str:
    return ", ".join(_key_parts(table, kind))


# A derived child record's EventId is `<its carrier's EventId>:<kind>:<n>`; no record's own id has a
# colon (span ids and log event hashes are hex). Cheaper than Provenance['kind'] = 'derived'.
DERIVED_RECORD = "position(EventId, ':') > 0"


def _dropped(where: Sql, src: Sql, kind: bool = True) -> str:
    """(group, EventId) of each row that is the twin of a kept row: the rows the rule drops. Without
    the kind: (identity, service, EventId), what a derived record of a dropped carrier names it by."""
    n = len(_key_parts(kind=kind))
    return f"SELECT {', '.join(f'_k{i}' for i in range(n))}, _twin_id FROM ({_pairs(where, src)})"


_RETOLD = f"ScopeName IN {literals(TRAJECTORY_SCOPES)}"


def _retold_again(where: Sql, src: Sql) -> str:
    """The twin groups (`_key()`) of retold records that the agent's live telemetry also tells: same
    trial and kind, another service (see the module)."""
    trial = _key_parts()[:5]
    return f"""
        SELECT {", ".join(f"_k{i}" for i in range(len(trial)))}, _service, Kind FROM (
            SELECT {", ".join(f"{k} AS _k{i}" for i, k in enumerate(trial))}, Kind,
                   groupUniqArrayIf(ServiceName, NOT {_RETOLD}) AS _live, groupUniqArrayIf(ServiceName, {_RETOLD}) AS _retelling
            FROM {src.text} WHERE ({where.text})
            GROUP BY {", ".join(f"_k{i}" for i in range(len(trial)))}, Kind
            HAVING notEmpty(_live) AND notEmpty(_retelling))
        ARRAY JOIN _retelling AS _service
        WHERE arrayExists(s -> s != _service, _live)"""


_REPLAYABLE = f"Kind = 'user_message' AND SourceTable = '{LOGS}' AND Name IN {literals(REPLAYED_MESSAGES)}"


def _replayed(where: Sql, src: Sql) -> str:
    """(group, EventId) of each user message that replays one the call before it told (see the module)."""
    n = len(_key_parts())
    keys = ", ".join(f"_k{i}" for i in range(n))
    key_columns = ", ".join(f"{k} AS _k{i}" for i, k in enumerate(_key_parts()))
    return f"""
        SELECT {keys}, _m.2 AS EventId FROM (
            SELECT {keys}, _messages, lagInFrame(length(_messages), 1, 0) OVER (
                PARTITION BY {keys} ORDER BY _at, _call ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS _told
            FROM (
                SELECT {key_columns}, (TraceId, SpanId) AS _call, min(Timestamp) AS _at,
                       arraySort(groupArray((Timestamp, EventId))) AS _messages
                FROM {src.text} WHERE ({where.text}) AND {_REPLAYABLE}
                GROUP BY {keys}, _call))
        ARRAY JOIN arraySlice(_messages, 1, _told) AS _m"""


_CALL_SPAN = f"Kind = 'llm_request' AND SourceTable = '{SPANS}'"


def _traces_of(where: Sql) -> str:
    return f"(Tenant, TraceId) IN (SELECT Tenant, TraceId FROM agent_events WHERE ({where.text}) AND SourceTable = '{SPANS}')"


def _same_run(a: str, b: str) -> str:
    """Two spans of one trace are of one run unless both are named and their names differ: one trace sent again
    under another trial (a recording replayed under a new name) is another run, each trial's calls its own."""
    return f"ifNull({a}.JobName = {b}.JobName, true) AND ifNull({a}.TrialName = {b}.TrialName, true)"


# A model call span that tells nothing of its own: no model, no token count, no status.
_BARE = "isNull(Model) AND isNull(InputTokens) AND isNull(OutputTokens) AND isNull(HttpStatus)"


def _told_inside(where: Sql) -> str:
    """(Tenant, TraceId, SpanId) of each llm_request span that tells a call an llm_request span under it tells
    (see the module): the outer telling, which does not count. Read from agent_events as stored, over the
    traces of the rows `where` selects (whatever kinds it selects, and whatever trial a trace is named after:
    the spans are of one trace)."""
    columns = (
        "Tenant, TraceId, SpanId, ParentSpanId, ScopeName, RequestId, InputTokens, OutputTokens, JobName, TrialName"
    )
    calls = f"SELECT {columns}, {_BARE} AS _bare FROM agent_events WHERE {_CALL_SPAN} AND {_traces_of(where)}"
    # (joined, not looked up with IN: on a cluster a third nested read of the distributed table is refused)
    steps = (
        f"SELECT Tenant, TraceId, SpanId, ParentSpanId FROM agent_events "
        f"WHERE SourceTable = '{SPANS}' AND Kind != 'llm_request' AND {_traces_of(where)}"
    )
    return f"""
        SELECT _o.Tenant, _o.TraceId, _o.SpanId
        FROM ({calls}) AS _o
        INNER JOIN ({calls}) AS _i
            ON _i.Tenant = _o.Tenant AND _i.TraceId = _o.TraceId AND _i.ParentSpanId = _o.SpanId
        WHERE {_same_run("_o", "_i")} AND (_o._bare OR (_o.ScopeName != _i.ScopeName AND (_o.RequestId = _i.RequestId
           OR (_o.InputTokens = _i.InputTokens AND _o.OutputTokens = _i.OutputTokens)
           OR (isNull(_o.InputTokens) AND isNull(_o.OutputTokens)))))
        UNION DISTINCT
        SELECT _o.Tenant, _o.TraceId, _o.SpanId
        FROM ({calls}) AS _o
        INNER JOIN ({steps}) AS _s ON _s.Tenant = _o.Tenant AND _s.TraceId = _o.TraceId AND _s.ParentSpanId = _o.SpanId
        INNER JOIN ({calls}) AS _i ON _i.Tenant = _s.Tenant AND _i.TraceId = _s.TraceId AND _i.ParentSpanId = _s.SpanId
        WHERE _o._bare AND {_same_run("_o", "_i")}"""


_TOOL_SPAN = f"Kind = 'tool' AND SourceTable = '{SPANS}'"


def _tool_told_twice(where: Sql) -> str:
    """(Tenant, TraceId, SpanId) of each tool span whose call another tool span of its trace tells (the same call
    id) and counts for (see the module)."""
    return f"""
        SELECT Tenant, TraceId, SpanId FROM (
            SELECT Tenant, TraceId, SpanId, row_number() OVER (
                PARTITION BY Tenant, TraceId, JobName, TrialName, ToolCallId
                ORDER BY Provenance['arguments'] = '', Timestamp, EventId) AS _nth
            FROM agent_events
            WHERE {_TOOL_SPAN} AND ifNull(ToolCallId, '') != '' AND {_traces_of(where)})
        WHERE _nth > 1"""


def _not_dropped(where: Sql, src: Sql, derived: bool) -> str:
    """A condition on agent_events rows: not a dropped twin, nor (when `derived` records may be among
    the rows) a derived child record of one, nor a retold record the live telemetry tells. `where`
    selects the rows the pairs are found in."""
    rows = (
        f"({_key()}, EventId) NOT IN ({_dropped(where, src)})\n"
        # (a retold agent span stays: the trajectory's head, its session and name, whatever its kind)
        f"    AND NOT ({_RETOLD} AND Resolve != 'agent' AND ({_key()}) IN ({_retold_again(where, src)}))\n"
        f"    AND NOT ({_REPLAYABLE} AND ({_key()}, EventId) IN ({_replayed(where, src)}))\n"
        # the outer telling of a call told at two levels, and (derived records share its SpanId) its content
        f"    AND NOT (SourceTable = '{SPANS}' AND (Kind = 'llm_request' OR {DERIVED_RECORD})"
        f" AND (Tenant, TraceId, SpanId) IN ({_told_inside(where)}))\n"
        f"    AND NOT ({_TOOL_SPAN} AND (Tenant, TraceId, SpanId) IN ({_tool_told_twice(where)}))"
    )
    if not derived:
        return rows
    return f"""{rows}
    AND NOT ({DERIVED_RECORD} AND ({_key(kind=False)}, ParentSpanId) IN ({_dropped(where, src, kind=False)}))"""


def _pairs(where: Sql, src: Sql) -> str:
    """Each kept row that pairs with exactly one row of the other signal, its twin: the group (`_k0`...),
    its EventId and the twin's (`_twin_id`). By call id when both signals of the group carry ids, else
    by request id likewise, else by time order when both have as many rows; a row whose id only one
    signal has, or whose id two rows of a signal share, pairs with nothing. Only the rows of groups
    told by both signals are ranked; groups are compared by their key parts (a NULL job is a group too)."""
    spans, logs = f"SourceTable = '{SPANS}'", f"SourceTable = '{LOGS}'"
    keys = ", ".join(f"_k{i}" for i in range(len(_key_parts())))
    key_columns = ", ".join(f"{k} AS _k{i}" for i, k in enumerate(_key_parts()))
    return f"""
        SELECT {keys}, EventId, _twin_id
        FROM (
            SELECT *, anyIf(EventId, SourceTable != _kept) OVER same_call AS _twin_id,
                   countIf(SourceTable != _kept) OVER same_call AS _n_twins,
                   countIf(SourceTable = _kept) OVER same_call AS _n_kept
            FROM (
                SELECT {keys}, SourceTable, EventId, _kept,
                       multiIf(_by_id, ToolCallId, _by_request, RequestId, _by_order, toString(row_number() OVER (
                           PARTITION BY {keys}, SourceTable ORDER BY Timestamp, EventId)), NULL) AS _match
                FROM (
                    SELECT {keys}, SourceTable, EventId, Timestamp, ToolCallId, RequestId,
                           {kept_source("_spans", "_logs")} AS _kept,
                           _span_ids > 0 AND _log_ids > 0 AS _by_id,
                           _span_requests > 0 AND _log_requests > 0 AS _by_request, _spans = _logs AS _by_order
                    FROM (SELECT {key_columns}, SourceTable, EventId, Timestamp, ToolCallId, RequestId
                          FROM {src.text} WHERE ({where.text})) AS _r
                    -- (each row's group counts; only groups of both signals)
                    INNER JOIN (
                        SELECT {key_columns}, countIf({spans}) AS _spans, countIf({logs}) AS _logs,
                               countIf({spans} AND ToolCallId IS NOT NULL) AS _span_ids,
                               countIf({logs} AND ToolCallId IS NOT NULL) AS _log_ids,
                               countIf({spans} AND RequestId IS NOT NULL) AS _span_requests,
                               countIf({logs} AND RequestId IS NOT NULL) AS _log_requests
                        FROM {src.text} WHERE ({where.text})
                        GROUP BY {keys} HAVING _spans > 0 AND _logs > 0
                    ) AS _g USING ({keys})
                )
            )
            WINDOW same_call AS (PARTITION BY {keys}, _match)
        )
        WHERE SourceTable = _kept AND _match IS NOT NULL AND _n_twins = 1 AND _n_kept = 1"""


def _with_facts(rows: Sql, where: Sql, src: Sql, twin_ids: bool = False) -> str:
    """`rows` (a SELECT of agent_events rows, all columns, twins dropped) with each kept row's missing
    facts taken from the dropped twin it pairs with. `where` selects the rows the pairs are found in.
    twin_ids: also `_twin_id`, the EventId of that twin ('' for a row without one)."""
    columns = [c for block in FILLED for c in block]
    twin = {c: f"_t_{c}" for c in columns + ["Provenance"]}
    takes = [f"_paired AND {_lacks(block, twin)} AS _take{i}" for i, block in enumerate(FILLED)]
    replaced = [f"if(_take{i}, {twin[c]}, {c}) AS {c}" for i, block in enumerate(FILLED) for c in block]
    # A fact taken from the twin comes with the twin's provenance.
    taken = ", ".join(
        f"if(_take{i}, [{', '.join(literal(_PROVENANCE_KEY[c]) for c in block)}], [])" for i, block in enumerate(FILLED)
    )
    replaced.append(
        f"if(_paired, mapUpdate(Provenance, mapFilter((k, v) -> has(arrayConcat({taken}), k), "
        f"_t_Provenance)), Provenance) AS Provenance"
    )
    n = len(_key_parts())
    pair_key, twin_key, row_key = (", ".join(f"{prefix}{i}" for i in range(n)) for prefix in ("_p._k", "_tk", "_f._k"))
    helpers = [
        "_paired",
        *([] if twin_ids else ["_twin_id"]),
        *twin.values(),
        *(f"_take{i}" for i in range(len(FILLED))),
    ]
    return f"""
SELECT * EXCEPT ({", ".join(helpers)}) REPLACE ({", ".join(replaced)})
FROM (
    SELECT *, {", ".join(takes)}
    FROM (
        SELECT _e.*, _f.* EXCEPT ({", ".join(f"_k{i}" for i in range(n))}, EventId)
        FROM ({rows.text}) AS _e
        LEFT JOIN (
            SELECT _p.*, true AS _paired, {", ".join(f"_t.{c}" for c in twin.values())}
            FROM ({_pairs(where, src)}) AS _p
            INNER JOIN (
                SELECT {", ".join(f"{k} AS _tk{i}" for i, k in enumerate(_key_parts()))}, EventId AS _t_id,
                       {", ".join(f"{c} AS {twin[c]}" for c in columns + ["Provenance"])}
                FROM {src.text} WHERE ({where.text}) AND ({_key()}, EventId) IN ({_dropped(where, src)})
            ) AS _t ON ({pair_key}, _p._twin_id) = ({twin_key}, _t._t_id)
        ) AS _f ON ({_key("_e.")}, _e.EventId) = ({row_key}, _f.EventId)
    )
)"""


# How a reader reads the rows it selects, as `form` finds, in flags: with twins resolved (TWINS), named
# after their trials first (NAMED, harborlight/agent/identity.py, the renames `form` read bound as
# parameters), both, or neither (PLAIN: as stored). Planning costs grow with each (one small trial, a busy
# machine: PLAIN ~0.03 s, TWINS ~1.5 s, both ~3 s). ALONE is both with the renames read inside the
# statement (SQL that stands alone: Grafana's; ~5 s there).
PLAIN, TWINS, NAMED, ALONE = 0, 1, 2, 4
FORMS = (PLAIN, TWINS, NAMED, TWINS | NAMED)


def source(scope: Sql, form: int) -> Sql:
    """The rows the rule is decided over: agent_events, or (NAMED, ALONE) those named after their trials."""
    if form & (NAMED | ALONE):
        return Sql(f"({agent_identity.named(scope, bound=form != ALONE).text}\n) AS _named_rows")
    return Sql("agent_events")


def _to_resolve(rows: Sql, group: str) -> str:
    """Whether the rows hold, per `group` (a twin group without its service), a service told by both signals,
    a retold kind that another service tells too, or user messages that more than one call logged (some may
    be replayed): one scan; or a call told at two levels."""
    return f"""((SELECT count() > 0 FROM (
        SELECT 1 FROM agent_events WHERE {rows.text}
        GROUP BY {group}
        HAVING hasAny(groupUniqArrayIf(ServiceName, SourceTable = '{SPANS}'), groupUniqArrayIf(ServiceName, SourceTable = '{LOGS}'))
            OR (countIf({_RETOLD}) > 0 AND uniqExact(ServiceName) > 1)
            OR uniqExactIf((TraceId, SpanId), {_REPLAYABLE}) > 1
        LIMIT 1))
        OR (SELECT count() > 0 FROM ({_told_inside(rows)} LIMIT 1))
        OR (SELECT count() > 0 FROM ({_tool_told_twice(rows)} LIMIT 1)))"""


def form(where: Sql, *, scope: Sql) -> Sql:
    """SQL of one row: the form the rows `where` selects are read in, and the renames and earlier runs NAMED
    binds (`bind`). NAMED when some records of the scope's traces or sessions take another record's trial
    or a trial of the scope has an earlier run (harborlight/agent/identity.py),
    TWINS when the rows hold a twin group, a retold kind that another service tells too, user messages
    more than one call logged (REPLAYED_MESSAGES), or a call told at two levels (with renames:
    when any kind of them, renamed ones included, is so, whatever their trials)."""
    renames = agent_identity.renames(scope).text
    renamed_rows = Sql(f"({where.text}) OR TrialName IN (SELECT trace FROM ({renames}))")
    return Sql(f"""
SELECT if(notEmpty(_renames) OR notEmpty(_runs),
          {NAMED} + {TWINS} * {_to_resolve(renamed_rows, "Kind")},
          {TWINS} * {_to_resolve(Sql(f"({where.text})"), "Tenant, JobName, TrialName, Kind")}), _renames, _runs
FROM (SELECT groupArray((key, trace, job, trial)) AS _renames FROM ({renames})) AS _named_by,
     (SELECT groupArray((key, cutoff)) AS _runs FROM ({agent_identity.earlier_runs(scope).text})) AS _earlier""")


def bind(row: tuple[Any, ...]) -> tuple[int, dict[str, list[Any]]]:
    """(form, the parameters its statements bind) from the row `form` answered."""
    return row[0], agent_identity.parameters(row[1], row[2])


def events(where: Sql, form: int = ALONE, derived: bool = True, twin_ids: bool = False, *, scope: Sql) -> Sql:
    """agent_events rows matching `where` (whole twin groups), named after their trials: twins dropped,
    facts filled per call. Same columns as agent_events. `scope`: the identity part of `where`
    (harborlight/agent/identity.py). `form`: as `form()` found (ALONE holds for any rows; without TWINS the
    rows are as they are). derived=False: `where` selects no derived records (they are only of kinds
    reasoning, output and user_message), so none is looked up for its carrier (it saves ~60 ms of planning).
    twin_ids: one more column, `_twin_id`: the EventId of the dropped twin a row pairs with, else ''
    (whoever already showed that twin knows the call)."""
    src = source(scope, form)
    rows = f"SELECT * FROM {src.text} WHERE ({where.text})"
    if not form & (TWINS | ALONE):
        return Sql(f"SELECT *, '' AS _twin_id FROM {src.text} WHERE ({where.text})" if twin_ids else rows)
    return Sql(_with_facts(Sql(f"{rows} AND {_not_dropped(where, src, derived)}"), where, src, twin_ids))


def outer_tellings(where: Sql, form: int = ALONE, *, scope: Sql) -> Sql:
    """The outer tellings of the calls told at two levels among the rows `where` selects, as groups (same columns
    as agent_events): a trace shows their spans, so the inner calls keep their place under them, while each call
    counts once (`events` leaves them out). Without TWINS there are none."""
    if not form & (TWINS | ALONE):
        return Sql("SELECT * FROM agent_events WHERE false")
    # (filtered in a subquery: in ClickHouse a WHERE beside the REPLACE would read the replaced Kind)
    return Sql(
        f"SELECT * REPLACE ('group' AS Kind) FROM (SELECT * FROM {source(scope, form).text} WHERE ({where.text})"
        f" AND (({_CALL_SPAN} AND (Tenant, TraceId, SpanId) IN ({_told_inside(where)}))"
        f" OR ({_TOOL_SPAN} AND (Tenant, TraceId, SpanId) IN ({_tool_told_twice(where)}))))"
    )


def per_group(where: Sql, aggregates: Sql, form: int = ALONE, *, scope: Sql) -> Sql:
    """Agent events matching `where` (whole twin groups), as `events` lists them (named after their
    trials, each call once, facts filled from its twin), aggregated per twin group: JobName, TrialName,
    ServiceName, Kind, `n` (rows) and `aggregates` (SQL over agent_events rows, each `AS name`).
    `scope`: the identity part of `where`; `form`: as `form()` found."""
    return Sql(f"""
SELECT {GROUP}, count() AS n, {aggregates.text}
FROM ({events(where, form, scope=scope).text})
GROUP BY {GROUP}""")


def counted(where: Sql, form: int = ALONE, *, scope: Sql) -> Sql:
    """A condition on the rows `where` selects (named after their trials in the forms that name them):
    the row is counted, no dropped twin (derived records aside)."""
    return Sql(_not_dropped(where, source(scope, form), derived=False) if form & (TWINS | ALONE) else "1")
