-- Tool calls per category, and how many failed: the API's rows of the job's calls (a call either record saw
-- fail failed; a span that merely ended is no evidence of success when its log-event twin says how it went).
SELECT
    coalesce(ToolCategory, 'other') AS category,
    count() AS calls,
    countIf(Success = false) AS failed
FROM resolved_events FINAL
WHERE JobKey = ${job:sqlstring} AND Kind = 'tool' AND NOT OuterTelling AND $__timeFilter(Timestamp)
  AND coalesce(ToolName, '') != ''
GROUP BY category
ORDER BY calls DESC, category
