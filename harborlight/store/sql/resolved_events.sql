-- Agent events as every reader reads them, resolved once when they change (harborlight/summaries/resolve.py): the
-- records named after a trace or a session given their trial, the earlier runs of a retried trial left out, a
-- call told by a span and a log event (or at two levels) once, its facts filled from its twin
-- (harborlight/agent/twins.py, harborlight/agent/identity.py). The columns are agent_events' (the same names and
-- types), then: TrialKey and JobKey, the trial and job the record resolved to ('' for none; a record of no trial
-- goes by its trace id); TwinId, the EventId of the twin a call was paired with ('' for none); OuterTelling, the
-- outer span of a call told at two levels, shown as a group in its trace and counted nowhere. Read with FINAL:
-- the newest Version of a record wins, and a Deleted one (moved to another trial, left out) is gone.
CREATE TABLE IF NOT EXISTS resolved_events (
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
    Tenant LowCardinality(String),
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
    RequestId Nullable(String) CODEC(ZSTD(1)),
    AgentVersion Nullable(String) CODEC(ZSTD(1)),
    SideCall LowCardinality(Nullable(String)),
    SessionId Nullable(String) CODEC(ZSTD(1)),
    TrialKey String,
    JobKey String,
    TwinId String,
    OuterTelling Bool,
    Version UInt64,
    Deleted UInt8,
    INDEX idx_job JobKey TYPE bloom_filter(0.01) GRANULARITY 1,  -- a job's rows, across its trials' ranges
    INDEX idx_trace_id TraceId TYPE bloom_filter(0.001) GRANULARITY 1,  -- the live feed's look-up of a commit's
    INDEX idx_session_id SessionId TYPE bloom_filter(0.001) GRANULARITY 1  -- traces and sessions
) ENGINE = ReplacingMergeTree(Version, Deleted)
ORDER BY (Tenant, TrialKey, JobKey, EventId)  -- one trial is a range
{ttl:Timestamp}
