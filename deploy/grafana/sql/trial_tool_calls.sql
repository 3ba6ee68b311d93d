-- Every tool call of the trial: category, result, the paths it touched. A call told both as a span and
-- as a log event is listed once, and failed as its twin measured it when the listed record only inferred it.
SELECT
    Timestamp AS time,
    ToolName AS tool,
    ToolCategory AS category,
    ToolCallId AS call_id,
    coalesce(measured.success, Success) = false AS failed,
    arrayStringConcat(TargetPaths, ', ') AS paths,
    DurationNs / 1e6 AS duration_ms,
    ErrorType AS error,
    TraceId AS trace_id
FROM agent_events
LEFT JOIN (
    SELECT ToolCallId, anyIf(Success, Provenance['success'] IN ('measured', 'derived')) AS success
    FROM agent_events
    WHERE JobName = ${job:sqlstring} AND TrialName = ${trial:sqlstring} AND Kind = 'tool' AND ToolCallId IS NOT NULL
    GROUP BY ToolCallId
) AS measured USING ToolCallId
WHERE $__timeFilter(Timestamp) AND JobName = ${job:sqlstring} AND TrialName = ${trial:sqlstring}
  AND Kind = 'tool' AND coalesce(ToolName, '') != '' AND {{counted}}
ORDER BY time
