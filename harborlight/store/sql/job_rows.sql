-- One row per job: the job row as GET /api/jobs/{job} answers it, derived by harborlight/read/derive/ from the job's
-- stored trial rows whenever one of them is derived again (harborlight/summaries/). The lower-case columns are
-- the API row's fields by the same names (a valued field's value); Row is the API's answer itself. Read
-- with FINAL: the newest Version of a job wins, and a Deleted one (no trials left) is gone.
CREATE TABLE IF NOT EXISTS job_rows (
    Tenant LowCardinality(String),
    job String,
    Version UInt64,
    Deleted UInt8,
    first_seen Nullable(Float64),
    last_seen Nullable(Float64),
    n_trials Nullable(Int64),
    n_running Nullable(Int64),
    n_infra Nullable(Int64),
    raw_solve_rate Nullable(Float64),
    adjusted_solve_rate Nullable(Float64),
    mean_score Nullable(Float64),
    counts Map(String, Int64),
    total_input_tokens Nullable(Int64),
    total_cache_tokens Nullable(Int64),
    total_output_tokens Nullable(Int64),
    total_cost_usd Nullable(Float64),
    duration_min Nullable(Float64),
    agent_label Nullable(String),
    is_running Nullable(Bool),
    Row String CODEC(ZSTD(1)),
    FirstSeenAt DateTime ALIAS toDateTime(first_seen)  -- for the dashboards' time filter
) ENGINE = ReplacingMergeTree(Version, Deleted)
ORDER BY (Tenant, job)
