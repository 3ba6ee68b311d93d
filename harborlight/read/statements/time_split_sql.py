"""The SQL that measures where a job's (or one trial's) agent phases went, in ClickHouse.

Per trial, over its model calls and named tool calls (its resolved events, harborlight/read/statements/
resolved_sql.py: each call once, named after its trial; tool events without a tool name are empty placeholders,
not calls): the union of the clocked calls'
intervals clipped to the trial's bounds, by the engine's `intervalLengthSum` (overlapping time counts
once) — of the model calls, of all calls, and of each model's calls — the counts of calls with and
without a clock, the clocked calls' extent, and whether any clock was inferred. The bounds are given
per trial ({trials}, {lo}, {hi}: UNIX nanoseconds, the harness's agent_execution span where known).
A call has a clock when it has an end and its timing is not `unknown`. Times are UNIX nanoseconds.
"""

from harborlight.read.statements.tenancy import AGENT_TENANT_FILTER

_CALLS = f"""{AGENT_TENANT_FILTER} AND NOT OuterTelling AND JobKey = {{job:String}} AND TrialName IS NOT NULL
      AND ({{trial:String}} = '' OR TrialKey = {{trial:String}}) AND Kind IN ('llm_request', 'tool')"""

UNBOUNDED_LO, UNBOUNDED_HI = 0, 2**62  # a trial's bounds where the harness recorded none

SPLITS = f"""
SELECT trial, model_ns, busy_ns, n_timed, n_untimed, first_start, last_end, inferred,
       arrayMap(m -> (m, arrayReduce('intervalLengthSum', arrayMap(c -> c.2, arrayFilter(c -> c.1 = m, model_calls)),
                                     arrayMap(c -> c.3, arrayFilter(c -> c.1 = m, model_calls)))),
                arraySort(arrayDistinct(arrayMap(c -> c.1, model_calls)))) AS by_model
FROM (
    SELECT TrialName AS trial,
           intervalLengthSumIf(a, b, clipped AND Kind = 'llm_request') AS model_ns,
           intervalLengthSumIf(a, b, clipped) AS busy_ns,
           countIf(clocked) AS n_timed, countIf(NOT clocked) AS n_untimed,
           minIf(ts, clocked) AS first_start, maxIf(end_ts, clocked) AS last_end,
           countIf(clocked AND TimingQuality = 'inferred') > 0 AS inferred,
           groupArrayIf((coalesce(Model, 'unknown'), a, b), clipped AND Kind = 'llm_request') AS model_calls
    FROM (
        SELECT TrialName, Kind, Model, TimingQuality,
               toUnixTimestamp64Nano(Timestamp) AS ts, coalesce(toUnixTimestamp64Nano(EndTimestamp), 0) AS end_ts,
               EndTimestamp IS NOT NULL AND TimingQuality != 'unknown' AS clocked,
               greatest(ts, transform(TrialName, {{trials:Array(String)}}, {{lo:Array(Int64)}}, toInt64({UNBOUNDED_LO}))) AS a,
               least(end_ts, transform(TrialName, {{trials:Array(String)}}, {{hi:Array(Int64)}}, toInt64({UNBOUNDED_HI}))) AS b,
               clocked AND b > a AS clipped
        FROM resolved_events FINAL
        WHERE {_CALLS} AND (Kind = 'llm_request' OR coalesce(ToolName, '') != '')
    )
    GROUP BY trial
)
"""
