-- The exporter's trace-id index, with the tenant of the spans a row bounds (Tenant, last: a store from before
-- gets it by ALTER, otel_traces_trace_id_ts_tenant): one trace id's rows of two tenants never merge, and each
-- tenant's row bounds only its own spans.
CREATE TABLE IF NOT EXISTS otel_traces_trace_id_ts (
    TraceId String CODEC(ZSTD(1)),
    Start SimpleAggregateFunction(min, DateTime) CODEC(ZSTD(1)),
    End SimpleAggregateFunction(max, DateTime) CODEC(ZSTD(1)),
    Tenant LowCardinality(String)
) ENGINE = AggregatingMergeTree()
PARTITION BY toStartOfWeek(Start)
ORDER BY (TraceId)
{ttl:Start}
SETTINGS index_granularity = 8192, ttl_only_drop_parts = 1
