-- Model-call cost and tokens of the selected jobs per interval (llm_request events; an agent that reports
-- only session totals shows in the jobs table, not here).
SELECT
    $__timeInterval(Timestamp) AS time,
    sumIf(CostUsd, cost_counted) AS cost_usd,
    sumIf(InputTokens, tokens_counted) AS input_tokens,
    sumIf(CachedTokens, tokens_counted) AS cached_tokens,
    sumIf(OutputTokens, tokens_counted) AS output_tokens
FROM (
    SELECT *, {{counted}} AS counted, {{counted:InputTokens}} AS tokens_counted,
           {{counted:CostUsd}} AS cost_counted
    FROM agent_events
    WHERE $__timeFilter(Timestamp) AND JobName IN (${job:sqlstring}) AND Kind = 'llm_request'
)
GROUP BY time
ORDER BY time
