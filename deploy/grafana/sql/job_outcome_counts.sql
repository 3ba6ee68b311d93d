-- Trials per outcome (running trials as `running`).
WITH {{trial_outcomes}}
SELECT outcome, count() AS trials
FROM trial_outcomes
GROUP BY outcome
ORDER BY trials DESC, outcome
