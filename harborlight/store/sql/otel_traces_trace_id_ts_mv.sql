-- The exporter's view, with the tenant (the resource attribute the collector stamps with tenants on; '' else).
CREATE MATERIALIZED VIEW IF NOT EXISTS otel_traces_trace_id_ts_mv TO otel_traces_trace_id_ts AS
SELECT
    TraceId,
    min(toDateTime(Timestamp)) AS Start,
    max(toDateTime(Timestamp)) AS End,
    ResourceAttributes['harborlight.tenant'] AS Tenant
FROM otel_traces
WHERE TraceId != ''
GROUP BY TraceId, Tenant
