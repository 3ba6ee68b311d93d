CREATE TABLE IF NOT EXISTS agent_events (
    Timestamp DateTime64(9) CODEC(Delta(8), ZSTD(1)),
    EndTimestamp Nullable(DateTime64(9)) CODEC(ZSTD(1)),
    DurationNs Nullable(UInt64) CODEC(ZSTD(1)),
    TimingQuality LowCardinality(String),
    EventId String CODEC(ZSTD(1)),
    TraceId String CODEC(ZSTD(1)),
    SpanId String CODEC(ZSTD(1)),
    ParentSpanId String CODEC(ZSTD(1)),
    SourceTable LowCardinality(String),
    Kind LowCardinality(String),
    KindRule LowCardinality(String),
    Resolve LowCardinality(String),
    Name String CODEC(ZSTD(1)),
    ServiceName LowCardinality(String),
    ScopeName LowCardinality(String),
    Tenant LowCardinality(String),  -- the caller's tenant when tokens map to tenants, else ''
    JobName Nullable(String) CODEC(ZSTD(1)),
    TrialName Nullable(String) CODEC(ZSTD(1)),
    Attempt Nullable(Int64),
    TaskName Nullable(String) CODEC(ZSTD(1)),
    AgentName Nullable(String) CODEC(ZSTD(1)),
    Model LowCardinality(Nullable(String)),
    Provider LowCardinality(Nullable(String)),
    InputTokens Nullable(Int64),
    CachedTokens Nullable(Int64),
    CacheWriteTokens Nullable(Int64),
    OutputTokens Nullable(Int64),
    ReasoningTokens Nullable(Int64),
    CostUsd Nullable(Float64),
    HttpStatus Nullable(UInt16),
    ErrorType Nullable(String) CODEC(ZSTD(1)),
    Success Nullable(Bool),
    ToolName Nullable(String) CODEC(ZSTD(1)),
    ToolCategory LowCardinality(Nullable(String)),
    ToolCallId Nullable(String) CODEC(ZSTD(1)),
    TargetPaths Array(String) CODEC(ZSTD(1)),
    Provenance Map(LowCardinality(String), LowCardinality(String)) CODEC(ZSTD(1)),
    RequestId Nullable(String) CODEC(ZSTD(1)),  -- stores from before it get it by ALTER (agent_events_request_id)
    AgentVersion Nullable(String) CODEC(ZSTD(1)),  -- stores from before these get them by ALTER (agent_events_side_call)
    SideCall LowCardinality(Nullable(String)),
    SessionId Nullable(String) CODEC(ZSTD(1)),  -- stores from before it get it and its index by ALTER (agent_events_session_id)
    INDEX idx_job JobName TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_trace_id TraceId TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_session_id SessionId TYPE bloom_filter(0.001) GRANULARITY 1
) ENGINE = MergeTree()
PARTITION BY toDate(Timestamp)
ORDER BY (TrialName, Timestamp)
{ttl:Timestamp}
SETTINGS index_granularity = 8192, ttl_only_drop_parts = 1, allow_nullable_key = 1
