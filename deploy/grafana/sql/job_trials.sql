-- One row per trial: outcome, reward, phase durations (seconds), usage.
WITH {{trial_outcomes}}
SELECT
    trial,
    task,
    attempt,
    outcome,
    reward,
    nullIf(exception_type, '') AS exception,
    total_s,
    env_s,
    agent_setup_s,
    agent_s,
    verifier_s,
    cost_usd,
    input_tokens,
    output_tokens,
    model_calls,
    tool_calls,
    rate_limited_calls
FROM trial_outcomes
ORDER BY trial
