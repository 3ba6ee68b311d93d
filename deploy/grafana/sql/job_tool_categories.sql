-- Tool calls per category, and how many failed.
SELECT
    coalesce(ToolCategory, 'other') AS category,
    count() AS calls,
    countIf(Success = false) AS failed
FROM agent_events
WHERE $__timeFilter(Timestamp) AND JobName = ${job:sqlstring} AND Kind = 'tool' AND coalesce(ToolName, '') != ''
GROUP BY category
ORDER BY calls DESC, category
