-- Trials by outcome, in the interval their first event falls in (the stored trial rows' outcomes).
SELECT
    $__timeInterval(FirstSeenAt) AS time,
    countIf(outcome = 'resolved' AND NOT is_running) AS resolved,
    countIf(outcome = 'scored' AND NOT is_running) AS scored,
    countIf(outcome IN ('failed_verification', 'patch_failed_tests', 'patch_not_applied', 'no_patch')
            AND NOT is_running) AS failed,
    countIf(outcome = 'agent_error' AND NOT is_running) AS agent_error,
    countIf(outcome IN ({{infra_outcomes}}) AND NOT is_running) AS infra_error,
    countIf(outcome = 'unknown' AND NOT is_running) AS unknown,
    countIf(is_running) AS running
FROM trial_rows FINAL
WHERE job IN (${job:sqlstring}) AND $__timeFilter(FirstSeenAt)
GROUP BY time
ORDER BY time
