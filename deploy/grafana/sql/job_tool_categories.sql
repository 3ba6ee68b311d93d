-- Tool calls per category, and how many failed (as far as a call says so itself: a span that merely
-- ended is no evidence of success when its log-event twin says how the call went).
SELECT
    coalesce(ToolCategory, 'other') AS category,
    countIf(counted) AS calls,
    countIf(Success = false AND success_counted) AS failed
FROM (
    SELECT *, {{counted}} AS counted,
           {{counted:if(Provenance['success'] = 'inferred', NULL, Success)}} AS success_counted
    FROM agent_events
    WHERE $__timeFilter(Timestamp) AND JobName = ${job:sqlstring} AND Kind = 'tool' AND coalesce(ToolName, '') != ''
)
GROUP BY category
ORDER BY calls DESC, category
