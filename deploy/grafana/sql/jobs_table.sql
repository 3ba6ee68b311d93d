-- One row per job: its trials (those whose first event is in the time range) and their outcomes,
-- solve rates as /api/jobs computes them (running trials left out; adjusted = without infra errors).
WITH {{trial_outcomes}}
SELECT
    job,
    count() AS trials,
    countIf(running) AS running_trials,
    countIf(outcome = 'resolved') AS resolved,
    countIf(infra) AS infra_errors,
    if(countIf(verdict) = 0, NULL, countIf(outcome = 'resolved') / countIf(NOT running)) AS raw_solve_rate,
    if(countIf(verdict) = 0 OR countIf(NOT running AND NOT infra) = 0, NULL,
       countIf(outcome = 'resolved') / countIf(NOT running AND NOT infra)) AS adjusted_solve_rate,
    sum(cost_usd) AS cost_usd,
    sum(input_tokens) AS input_tokens,
    sum(output_tokens) AS output_tokens,
    min(first_seen) AS started
FROM trial_outcomes
GROUP BY job
ORDER BY started DESC
