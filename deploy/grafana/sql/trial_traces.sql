-- The trial's traces (the harness's and each agent's); a trace id opens the trace view in Explore.
SELECT
    TraceId AS trace_id,
    any(ServiceName) AS service,
    count() AS events,
    min(Timestamp) AS started
FROM agent_events
WHERE JobName = ${job:sqlstring} AND TrialName = ${trial:sqlstring}
GROUP BY trace_id
ORDER BY started
