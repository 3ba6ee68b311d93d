-- Model calls, tokens and cost per model; a call told both as a span and as a log event counts once.
SELECT
    coalesce(Model, 'unknown') AS model,
    countIf(counted) AS calls,
    countIf(counted AND HttpStatus = 429) AS rate_limited,
    sumIf(InputTokens, tokens_counted) AS input_tokens,
    sumIf(CachedTokens, tokens_counted) AS cached_tokens,
    sumIf(OutputTokens, tokens_counted) AS output_tokens,
    sumIf(CostUsd, cost_counted) AS cost_usd
FROM (
    SELECT *, {{counted}} AS counted, {{counted:InputTokens}} AS tokens_counted,
           {{counted:CostUsd}} AS cost_counted
    FROM agent_events
    WHERE $__timeFilter(Timestamp) AND JobName = ${job:sqlstring} AND Kind = 'llm_request'
)
GROUP BY model
ORDER BY calls DESC, model
