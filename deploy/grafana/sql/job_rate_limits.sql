-- Model calls per interval, and those answered 429 (rate limited) or 5xx.
SELECT
    $__timeInterval(Timestamp) AS time,
    count() AS model_calls,
    countIf(HttpStatus = 429) AS rate_limited,
    countIf(HttpStatus >= 500) AS server_errors
FROM agent_events
WHERE $__timeFilter(Timestamp) AND JobName = ${job:sqlstring} AND Kind = 'llm_request' AND {{counted}}
GROUP BY time
ORDER BY time
