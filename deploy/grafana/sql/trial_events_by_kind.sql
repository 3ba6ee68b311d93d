-- The trial's agent events per interval, one series per kind.
SELECT
    $__timeInterval(Timestamp) AS time,
    countIf(Kind = 'llm_request') AS llm_request,
    countIf(Kind = 'reasoning') AS reasoning,
    countIf(Kind = 'output') AS output,
    countIf(Kind = 'tool') AS tool,
    countIf(Kind = 'subagent') AS subagent,
    countIf(Kind = 'session') AS session,
    countIf(Kind = 'user_message') AS user_message,
    countIf(Kind = 'compaction') AS compaction,
    countIf(Kind = 'group') AS group
FROM agent_events
WHERE $__timeFilter(Timestamp) AND JobName = ${job:sqlstring} AND TrialName = ${trial:sqlstring}
  AND {{counted}}
GROUP BY time
ORDER BY time
