-- Agent events as every reader reads them, resolved once when they change (harborlight/summaries/resolve.py): the
-- records named after a trace or a session given their trial, the earlier runs of a retried trial left out, a
-- call told by a span and a log event (or at two levels) once, its facts filled from its twin
-- (harborlight/agent/twins.py, harborlight/agent/identity.py). The columns are agent_events' (its statement's
-- column lines, put in by harborlight/store/schema_ddl.py), then: TrialKey and JobKey, the trial and job the
-- record resolved to ('' for none; a record of no trial goes by its trace id); TwinId, the EventId of the twin a
-- call was paired with ('' for none); OuterTelling, the outer span of a call told at two levels, shown as a group
-- in its trace and counted nowhere. Read with FINAL: the newest Version of a record wins, and a Deleted one
-- (moved to another trial, left out) is gone.
CREATE TABLE IF NOT EXISTS resolved_events (
    {columns:agent_events}
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
