-- The calls of resolved_events rolled up per trial, kind, model (or tool category) and minute, written by the
-- keeper with each resolution (harborlight/read/statements/call_rollups_sql.py), so a job-wide dashboard panel
-- reads a row per trial and minute instead of every call. Label: a model call's Model ('unknown' for none), a
-- tool call's ToolCategory ('other' for none; tool calls without a ToolName are not rolled up, as the panels
-- count none). The sums are NULL where no call of the row reported the figure (missing is not zero), as a sum
-- over the calls is. Read with FINAL: a trial's newest resolution wins, and a row it no longer has is Deleted.
CREATE TABLE IF NOT EXISTS call_rollups (
    Tenant LowCardinality(String),
    JobKey String,
    TrialKey String,
    Kind LowCardinality(String),
    Label String,
    Minute DateTime,
    Calls UInt64,
    Failed UInt64,
    RateLimited UInt64,
    ServerErrors UInt64,
    InputTokens Nullable(Int64),
    CachedTokens Nullable(Int64),
    OutputTokens Nullable(Int64),
    CostUsd Nullable(Float64),
    Version UInt64,
    Deleted UInt8,
    INDEX idx_job JobKey TYPE bloom_filter(0.01) GRANULARITY 1  -- a job's rows, across its trials' ranges
) ENGINE = ReplacingMergeTree(Version, Deleted)
ORDER BY (Tenant, TrialKey, JobKey, Kind, Label, Minute)  -- one trial is a range, as in resolved_events
{ttl:Minute}
