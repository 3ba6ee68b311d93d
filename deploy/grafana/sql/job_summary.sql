-- The job's headline figures: its stored row, as GET /api/jobs/{job} answers it (job_rows).
SELECT
    n_trials AS trials,
    n_running AS running_trials,
    raw_solve_rate,
    adjusted_solve_rate,
    n_infra AS infra_errors,
    total_cost_usd AS cost_usd,
    total_input_tokens AS input_tokens,
    total_cache_tokens AS cache_tokens,
    total_output_tokens AS output_tokens
FROM job_rows FINAL
WHERE job IN (${job:sqlstring})
