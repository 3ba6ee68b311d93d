-- The job's headline figures, as GET /api/jobs/{job} reports them, over its stored trial rows (running
-- trials left out of the rates; adjusted = without infra errors; no rate before any verdict).
SELECT
    count() AS trials,
    countIf(is_running) AS running_trials,
    if(countIf(outcome IN ({{verdict_outcomes}}) AND NOT is_running) = 0, NULL,
       countIf(outcome = 'resolved' AND NOT is_running) / countIf(NOT is_running)) AS raw_solve_rate,
    if(countIf(outcome IN ({{verdict_outcomes}}) AND NOT is_running) = 0
           OR countIf(NOT is_running AND outcome NOT IN ({{infra_outcomes}})) = 0, NULL,
       countIf(outcome = 'resolved' AND NOT is_running)
           / countIf(NOT is_running AND outcome NOT IN ({{infra_outcomes}}))) AS adjusted_solve_rate,
    countIf(outcome IN ({{infra_outcomes}}) AND NOT is_running) AS infra_errors,
    sum(cost_usd) AS cost_usd,
    sum(n_input_tokens) AS input_tokens,
    sum(n_cache_tokens) AS cache_tokens,
    sum(n_output_tokens) AS output_tokens
FROM trial_rows FINAL
WHERE job IN (${job:sqlstring}) AND $__timeFilter(FirstSeenAt)
