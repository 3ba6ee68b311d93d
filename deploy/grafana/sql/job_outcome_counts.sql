-- Trials per outcome (running trials as `running`), from the stored trial rows.
SELECT if(is_running, 'running', outcome) AS outcome, count() AS trials
FROM trial_rows FINAL
WHERE job IN (${job:sqlstring}) AND $__timeFilter(FirstSeenAt)
GROUP BY outcome
ORDER BY trials DESC, outcome
