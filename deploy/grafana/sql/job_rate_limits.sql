-- Model calls per interval, and those answered 429 (rate limited) or 5xx: the API's rows of the job's calls.
SELECT
    $__timeInterval(Timestamp) AS time,
    count() AS model_calls,
    countIf(HttpStatus = 429) AS rate_limited,
    countIf(HttpStatus >= 500) AS server_errors
FROM resolved_events FINAL
WHERE JobKey = ${job:sqlstring} AND Kind = 'llm_request' AND NOT OuterTelling AND $__timeFilter(Timestamp)
GROUP BY time
ORDER BY time
