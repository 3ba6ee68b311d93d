CREATE MATERIALIZED VIEW IF NOT EXISTS otel_traces_trace_id_ts_mv TO otel_traces_trace_id_ts AS
SELECT
    TraceId,
    min(toDateTime(Timestamp)) AS Start,
    max(toDateTime(Timestamp)) AS End
FROM otel_traces
WHERE TraceId != ''
GROUP BY TraceId
