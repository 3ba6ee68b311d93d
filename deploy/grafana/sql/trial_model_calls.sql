-- Every model call of the trial: status, tokens, cost. A call told both as a span and as a log event is
-- listed once, with the facts its listed record lacks taken from its twin (Claude Code's cost is on its
-- events): the rows and facts the API's /api/spans lists.
SELECT
    Timestamp AS time,
    Model AS model,
    HttpStatus AS http_status,
    InputTokens AS input_tokens,
    CachedTokens AS cached_tokens,
    OutputTokens AS output_tokens,
    ReasoningTokens AS reasoning_tokens,
    CostUsd AS cost_usd,
    DurationNs / 1e6 AS duration_ms,
    ErrorType AS error,
    TraceId AS trace_id
FROM resolved_events FINAL
WHERE TrialKey = ${trial:sqlstring} AND JobKey = ${job:sqlstring} AND Kind = 'llm_request' AND NOT OuterTelling
  AND $__timeFilter(Timestamp)
ORDER BY Timestamp, EventId
