-- Model calls, tokens and cost per model.
SELECT
    coalesce(Model, 'unknown') AS model,
    count() AS calls,
    countIf(HttpStatus = 429) AS rate_limited,
    sum(InputTokens) AS input_tokens,
    sum(CachedTokens) AS cached_tokens,
    sum(OutputTokens) AS output_tokens,
    sum(CostUsd) AS cost_usd
FROM agent_events
WHERE $__timeFilter(Timestamp) AND JobName = ${job:sqlstring} AND Kind = 'llm_request'
GROUP BY model
ORDER BY calls DESC, model
