-- Rows stored per second, by table, at the time the telemetry carries (span start, log time): what the
-- tables hold for each interval, whoever wrote it (harborlight or an OpenTelemetry Collector).
SELECT
    time,
    sumIf(n, table = 'otel_traces') / $__interval_s AS spans_per_s,
    sumIf(n, table = 'otel_logs') / $__interval_s AS log_records_per_s,
    sumIf(n, table = 'agent_events') / $__interval_s AS agent_events_per_s
FROM (
    SELECT $__timeInterval(Timestamp) AS time, 'otel_traces' AS table, count() AS n
    FROM otel_traces WHERE $__timeFilter(Timestamp) GROUP BY time
    UNION ALL
    SELECT $__timeInterval(Timestamp) AS time, 'otel_logs' AS table, count() AS n
    FROM otel_logs WHERE $__timeFilter(Timestamp) GROUP BY time
    UNION ALL
    SELECT $__timeInterval(Timestamp) AS time, 'agent_events' AS table, count() AS n
    FROM agent_events WHERE $__timeFilter(Timestamp) GROUP BY time
)
GROUP BY time
ORDER BY time
