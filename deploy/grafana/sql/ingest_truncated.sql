-- Items stored with values cut or attributes dropped by the size limits (flagged harborlight.truncated). The key
-- test runs first on the maps' keys alone (PREWHERE), in the granules the exporter's key index leaves (mapContains).
SELECT
    time,
    sumIf(n, table = 'otel_traces') / $__interval_s AS truncated_spans_per_s,
    sumIf(n, table = 'otel_logs') / $__interval_s AS truncated_log_records_per_s
FROM (
    SELECT $__timeInterval(Timestamp) AS time, 'otel_traces' AS table, count() AS n
    FROM otel_traces PREWHERE has(SpanAttributes.keys, 'harborlight.truncated')
    WHERE $__timeFilter(Timestamp) AND mapContains(SpanAttributes, 'harborlight.truncated')
    GROUP BY time
    UNION ALL
    SELECT $__timeInterval(Timestamp) AS time, 'otel_logs' AS table, count() AS n
    FROM otel_logs PREWHERE has(LogAttributes.keys, 'harborlight.truncated')
    WHERE $__timeFilter(Timestamp) AND mapContains(LogAttributes, 'harborlight.truncated')
    GROUP BY time
)
GROUP BY time
ORDER BY time
