-- The arrival count (trial_arrivals) each trial name's rows were derived at; the newest version wins.
CREATE TABLE IF NOT EXISTS trial_summarized (
    Tenant LowCardinality(String),
    TrialKey String,
    Arrived UInt64,
    Version UInt64
) ENGINE = ReplacingMergeTree(Version)
ORDER BY (Tenant, TrialKey)
