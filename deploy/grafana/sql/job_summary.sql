-- The job's headline figures, as GET /api/jobs/{job} reports them.
WITH {{trial_outcomes}}
SELECT
    count() AS trials,
    countIf(running) AS running_trials,
    if(countIf(verdict) = 0, NULL, countIf(outcome = 'resolved') / countIf(NOT running)) AS raw_solve_rate,
    if(countIf(verdict) = 0 OR countIf(NOT running AND NOT infra) = 0, NULL,
       countIf(outcome = 'resolved') / countIf(NOT running AND NOT infra)) AS adjusted_solve_rate,
    countIf(infra) AS infra_errors,
    sum(cost_usd) AS cost_usd,
    sum(input_tokens) AS input_tokens,
    sum(cache_tokens) AS cache_tokens,
    sum(output_tokens) AS output_tokens
FROM trial_outcomes
