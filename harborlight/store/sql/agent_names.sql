-- Per name a record may give others (its trace's id, the session it claims: harborlight/agent/identity.py), in
-- the namer's job and in none, the record that names the name's records: the naming order's first so far.
-- Fed by agent_names_mv (its statement is agent_identity.NAMES_VIEW) as agent events arrive; one row per
-- name and job once merged, so a trial read looks its names up by key range (harborlight/store/schema.py fills it for
-- a store from before it, and again after agent events were derived again).
CREATE TABLE IF NOT EXISTS agent_names (
    Tenant LowCardinality(String),
    Name String CODEC(ZSTD(1)),
    Job String CODEC(ZSTD(1)),
    Namer AggregateFunction(argMin, Tuple(Nullable(String), Nullable(String)), Tuple(UInt8, UInt8, DateTime64(9), String))
) ENGINE = AggregatingMergeTree()
ORDER BY (Tenant, Name, Job)
SETTINGS index_granularity = 8192
