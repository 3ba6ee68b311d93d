-- One row per trial: outcome, reward, phase durations (seconds), usage, as GET /api/jobs/{job}/trials
-- answers them (the stored trial rows).
SELECT
    trial,
    task,
    attempt,
    if(is_running, 'running', outcome) AS outcome,
    reward,
    exception_type AS exception,
    dur_total AS total_s,
    dur_env AS env_s,
    dur_agent_setup AS agent_setup_s,
    dur_agent AS agent_s,
    dur_verifier AS verifier_s,
    cost_usd,
    n_input_tokens AS input_tokens,
    n_output_tokens AS output_tokens,
    ifNull(n_model_calls, 0) AS model_calls,
    ifNull(n_tool_calls, 0) AS tool_calls,
    n_rate_limited AS rate_limited_calls
FROM trial_rows FINAL
WHERE job IN (${job:sqlstring}) AND $__timeFilter(FirstSeenAt)
ORDER BY trial
