-- Items stored with values cut or attributes dropped by the size limits (flagged harborlight.truncated).
SELECT
    time,
    sumIf(n, table = 'otel_traces') / $__interval_s AS truncated_spans_per_s,
    sumIf(n, table = 'otel_logs') / $__interval_s AS truncated_log_records_per_s
FROM (
    SELECT $__timeInterval(Timestamp) AS time, 'otel_traces' AS table, count() AS n
    FROM otel_traces WHERE $__timeFilter(Timestamp) AND has(SpanAttributes.keys, 'harborlight.truncated')
    GROUP BY time
    UNION ALL
    SELECT $__timeInterval(Timestamp) AS time, 'otel_logs' AS table, count() AS n
    FROM otel_logs WHERE $__timeFilter(Timestamp) AND has(LogAttributes.keys, 'harborlight.truncated')
    GROUP BY time
)
GROUP BY time
ORDER BY time
