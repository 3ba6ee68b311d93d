-- Model-call cost and tokens of the selected jobs per interval: the API's rows of their model calls (an agent
-- that reports only session totals shows in the jobs table, not here).
SELECT
    $__timeInterval(Timestamp) AS time,
    sum(CostUsd) AS cost_usd,
    sum(InputTokens) AS input_tokens,
    sum(CachedTokens) AS cached_tokens,
    sum(OutputTokens) AS output_tokens
FROM resolved_events FINAL
WHERE JobKey IN (${job:sqlstring}) AND Kind = 'llm_request' AND NOT OuterTelling AND $__timeFilter(Timestamp)
GROUP BY time
ORDER BY time
