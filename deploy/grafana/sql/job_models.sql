-- Model calls, tokens and cost per model: the API's rows of the job's calls (a call told both as a span and
-- as a log event once, its facts filled from its twin).
SELECT
    coalesce(Model, 'unknown') AS model,
    count() AS calls,
    countIf(HttpStatus = 429) AS rate_limited,
    sum(InputTokens) AS input_tokens,
    sum(CachedTokens) AS cached_tokens,
    sum(OutputTokens) AS output_tokens,
    sum(CostUsd) AS cost_usd
FROM resolved_events FINAL
WHERE JobKey = ${job:sqlstring} AND Kind = 'llm_request' AND NOT OuterTelling AND $__timeFilter(Timestamp)
GROUP BY model
ORDER BY calls DESC, model
