-- Every tool call of the trial: category, result, the paths it touched. A call told both as a span and
-- as a log event is listed once, with the facts its listed record lacks taken from its twin (failed as
-- its twin measured it when the listed record only inferred it): the rows and facts the API's
-- /api/spans lists, records without a tool name left out.
SELECT
    Timestamp AS time,
    ToolName AS tool,
    ToolCategory AS category,
    ToolCallId AS call_id,
    NOT Success AS failed,
    arrayStringConcat(TargetPaths, ', ') AS paths,
    DurationNs / 1e6 AS duration_ms,
    ErrorType AS error,
    TraceId AS trace_id
FROM resolved_events FINAL
WHERE TrialKey = ${trial:sqlstring} AND JobKey = ${job:sqlstring} AND Kind = 'tool' AND NOT OuterTelling
  AND $__timeFilter(Timestamp) AND coalesce(ToolName, '') != ''
ORDER BY Timestamp, EventId
