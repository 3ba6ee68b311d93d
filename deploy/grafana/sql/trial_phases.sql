-- The harness phases of the trial (harbor.* spans), in order.
SELECT
    replaceOne(SpanName, 'harbor.', '') AS phase,
    min(Timestamp) AS started,
    max(Timestamp + toIntervalNanosecond(Duration)) AS ended,
    dateDiff('millisecond', started, ended) / 1000 AS duration_s,
    countIf(has(`Events.Name`, 'exception')) > 0 AS raised
FROM otel_traces
WHERE ResourceAttributes['harbor.job.name'] = ${job:sqlstring}
  AND ResourceAttributes['harbor.trial.name'] = ${trial:sqlstring}
  AND SpanName IN ('harbor.trial', 'harbor.environment_setup', 'harbor.agent_setup', 'harbor.agent_execution',
                   'harbor.verifier')
GROUP BY phase
ORDER BY started, phase
