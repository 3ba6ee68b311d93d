-- Model calls per interval, and those answered 429 (rate limited) or 5xx: the API's rows of the job's calls,
-- rolled up per trial and minute by the keeper (call_rollups: an interval is a minute or longer).
SELECT
    $__timeInterval(Minute) AS time,
    sum(Calls) AS model_calls,
    sum(RateLimited) AS rate_limited,
    sum(ServerErrors) AS server_errors
FROM call_rollups FINAL
WHERE JobKey = ${job:sqlstring} AND Kind = 'llm_request' AND $__timeFilter(Minute)
GROUP BY time
ORDER BY time
