-- Every tool call of the trial: category, result, the paths it touched.
SELECT
    Timestamp AS time,
    ToolName AS tool,
    ToolCategory AS category,
    ToolCallId AS call_id,
    Success = false AS failed,
    arrayStringConcat(TargetPaths, ', ') AS paths,
    DurationNs / 1e6 AS duration_ms,
    ErrorType AS error,
    TraceId AS trace_id
FROM agent_events
WHERE $__timeFilter(Timestamp) AND JobName = ${job:sqlstring} AND TrialName = ${trial:sqlstring}
  AND Kind = 'tool' AND coalesce(ToolName, '') != ''
ORDER BY time
