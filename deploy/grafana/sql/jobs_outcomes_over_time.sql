-- Trials by outcome, in the interval their first event falls in.
WITH {{trial_outcomes}}
SELECT
    $__timeInterval(first_seen) AS time,
    countIf(outcome = 'resolved') AS resolved,
    countIf(outcome = 'scored') AS scored,
    countIf(outcome IN ('failed_verification', 'patch_failed_tests', 'patch_not_applied', 'no_patch')) AS failed,
    countIf(outcome = 'agent_error') AS agent_error,
    countIf(infra) AS infra_error,
    countIf(outcome = 'unknown') AS unknown,
    countIf(running) AS running
FROM trial_outcomes
GROUP BY time
ORDER BY time
