-- One row per job: its trials (those whose first event is in the time range) and their outcomes, from the
-- stored trial rows; solve rates as /api/jobs computes them (running trials left out; adjusted = without
-- infra errors).
SELECT
    job,
    count() AS trials,
    countIf(is_running) AS running_trials,
    countIf(outcome = 'resolved' AND NOT is_running) AS resolved,
    countIf(outcome IN ({{infra_outcomes}}) AND NOT is_running) AS infra_errors,
    if(countIf(outcome IN ({{verdict_outcomes}}) AND NOT is_running) = 0, NULL,
       countIf(outcome = 'resolved' AND NOT is_running) / countIf(NOT is_running)) AS raw_solve_rate,
    if(countIf(outcome IN ({{verdict_outcomes}}) AND NOT is_running) = 0
           OR countIf(NOT is_running AND outcome NOT IN ({{infra_outcomes}})) = 0, NULL,
       countIf(outcome = 'resolved' AND NOT is_running)
           / countIf(NOT is_running AND outcome NOT IN ({{infra_outcomes}}))) AS adjusted_solve_rate,
    sum(cost_usd) AS cost_usd,
    sum(n_input_tokens) AS input_tokens,
    sum(n_output_tokens) AS output_tokens,
    min(FirstSeenAt) AS started
FROM trial_rows FINAL
WHERE job IN (${job:sqlstring}) AND $__timeFilter(FirstSeenAt)
GROUP BY job
ORDER BY started DESC
