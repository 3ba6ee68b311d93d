-- The trial's outcome and figures, as GET /api/trials/{trial} reports them (its stored row).
SELECT if(is_running, 'running', outcome) AS outcome, reward, exception_type AS exception, dur_total AS total_s,
       cost_usd, n_input_tokens AS input_tokens, n_output_tokens AS output_tokens,
       ifNull(n_model_calls, 0) AS model_calls, ifNull(n_tool_calls, 0) AS tool_calls
FROM trial_rows FINAL
WHERE job = ${job:sqlstring} AND trial = ${trial:sqlstring}
