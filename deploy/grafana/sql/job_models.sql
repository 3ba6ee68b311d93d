-- Model calls, tokens and cost per model: the API's rows of the job's calls (a call told both as a span and
-- as a log event once, its facts filled from its twin), rolled up per trial and minute by the keeper
-- (call_rollups; the time range holds a call by its minute).
SELECT
    Label AS model,
    sum(Calls) AS calls,
    sum(RateLimited) AS rate_limited,
    sum(InputTokens) AS input_tokens,
    sum(CachedTokens) AS cached_tokens,
    sum(OutputTokens) AS output_tokens,
    sum(CostUsd) AS cost_usd
FROM call_rollups FINAL
WHERE JobKey = ${job:sqlstring} AND Kind = 'llm_request' AND $__timeFilter(Minute)
GROUP BY model
ORDER BY calls DESC, model
