-- One row per job whose first event is in the time range: its stored row, as GET /api/jobs answers it
-- (job_rows).
SELECT
    job,
    n_trials AS trials,
    n_running AS running_trials,
    counts['resolved'] AS resolved,
    n_infra AS infra_errors,
    raw_solve_rate,
    adjusted_solve_rate,
    total_cost_usd AS cost_usd,
    total_input_tokens AS input_tokens,
    total_output_tokens AS output_tokens,
    FirstSeenAt AS started
FROM job_rows FINAL
WHERE job IN (${job:sqlstring}) AND $__timeFilter(FirstSeenAt)
ORDER BY started DESC
