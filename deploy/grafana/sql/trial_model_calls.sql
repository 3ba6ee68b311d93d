-- Every model call of the trial: status, tokens, cost.
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
FROM agent_events
WHERE $__timeFilter(Timestamp) AND JobName = ${job:sqlstring} AND TrialName = ${trial:sqlstring}
  AND Kind = 'llm_request' AND {{counted}}
ORDER BY time
