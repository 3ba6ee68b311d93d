-- Tool calls per category, and how many failed: the API's rows of the job's calls (a call either record saw
-- fail failed; a span that merely ended is no evidence of success when its log-event twin says how it went),
-- rolled up per trial and minute by the keeper (call_rollups; the time range holds a call by its minute).
SELECT
    Label AS category,
    sum(Calls) AS calls,
    sum(Failed) AS failed
FROM call_rollups FINAL
WHERE JobKey = ${job:sqlstring} AND Kind = 'tool' AND $__timeFilter(Minute)
GROUP BY category
ORDER BY calls DESC, category
