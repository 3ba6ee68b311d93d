-- Model-call cost and tokens of the selected jobs per interval: the API's rows of their model calls (an agent
-- that reports only session totals shows in the jobs table, not here), rolled up per trial and minute by the
-- keeper (call_rollups: an interval is a minute or longer).
SELECT
    $__timeInterval(Minute) AS time,
    sum(CostUsd) AS cost_usd,
    sum(InputTokens) AS input_tokens,
    sum(CachedTokens) AS cached_tokens,
    sum(OutputTokens) AS output_tokens
FROM call_rollups FINAL
WHERE JobKey IN (${job:sqlstring}) AND Kind = 'llm_request' AND $__timeFilter(Minute)
GROUP BY time
ORDER BY time
