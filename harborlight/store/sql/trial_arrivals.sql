-- How many agent events have arrived per trial name (the name a record was stored under: a trial's, or
-- the trace id of a record named after its trace). Fed by trial_arrivals_mv as rows land; a trial's
-- stored row (trial_rows) is derived again when this count moves past the one it was derived at
-- (trial_summarized). A signal of change only: the facts are read from the events themselves.
CREATE TABLE IF NOT EXISTS trial_arrivals (
    Tenant LowCardinality(String),
    TrialKey String,
    Arrived UInt64
) ENGINE = SummingMergeTree()
ORDER BY (Tenant, TrialKey)
