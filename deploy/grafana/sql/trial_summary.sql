-- The trial's outcome and figures, as GET /api/trials/{trial} reports them.
WITH {{trial_outcomes}}
SELECT outcome, reward, nullIf(exception_type, '') AS exception, total_s, cost_usd, input_tokens, output_tokens,
       model_calls, tool_calls
FROM trial_outcomes
WHERE trial = ${trial:sqlstring}
