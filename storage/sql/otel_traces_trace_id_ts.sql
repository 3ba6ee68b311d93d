CREATE TABLE IF NOT EXISTS otel_traces_trace_id_ts (
    TraceId String CODEC(ZSTD(1)),
    Start SimpleAggregateFunction(min, DateTime) CODEC(ZSTD(1)),
    End SimpleAggregateFunction(max, DateTime) CODEC(ZSTD(1))
) ENGINE = AggregatingMergeTree()
PARTITION BY toStartOfWeek(Start)
ORDER BY (TraceId)
{ttl:Start}
SETTINGS index_granularity = 8192, ttl_only_drop_parts = 1
