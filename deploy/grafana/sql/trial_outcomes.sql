-- Shared by the panels that show outcomes (build.py pastes it where a panel says {{trial_outcomes}}).
-- One row per trial of the selected jobs whose first event falls in the time range, with the figures
-- /api/jobs/{job}/trials reports, and the outcome classified the way query/derive/outcomes.py does.
-- Approximated here: graded multi-part scores (`scored` only from a reward strictly between 0 and 1),
-- and rewards without a `harbor.reward.reward` key (the first key is taken, numeric or not).
trial_events AS (
    SELECT
        JobName AS job,
        TrialName AS trial,
        any(TaskName) AS task,
        min(Attempt) AS attempt,
        min(Timestamp) AS first_seen,
        coalesce(sumIf(InputTokens, Kind = 'llm_request' AND tokens_counted),
                 sumIf(InputTokens, Kind = 'session' AND tokens_counted)) AS input_tokens,
        coalesce(sumIf(CachedTokens, Kind = 'llm_request' AND tokens_counted),
                 sumIf(CachedTokens, Kind = 'session' AND tokens_counted)) AS cache_tokens,
        coalesce(sumIf(OutputTokens, Kind = 'llm_request' AND tokens_counted),
                 sumIf(OutputTokens, Kind = 'session' AND tokens_counted)) AS output_tokens,
        coalesce(sumIf(CostUsd, Kind = 'llm_request' AND cost_counted),
                 sumIf(CostUsd, Kind = 'session' AND cost_counted)) AS cost_usd,
        countIf(Kind = 'llm_request' AND counted) AS model_calls,
        countIf(Kind = 'tool' AND coalesce(ToolName, '') != '' AND counted) AS tool_calls,
        countIf(Kind = 'llm_request' AND HttpStatus = 429 AND counted) AS rate_limited_calls
    FROM (SELECT *, {{counted}} AS counted, {{counted:InputTokens}} AS tokens_counted,
                 {{counted:CostUsd}} AS cost_counted FROM agent_events
          WHERE JobName IN (${job:sqlstring}) AND TrialName IS NOT NULL)
    GROUP BY job, trial
    HAVING $__timeFilter(first_seen)
),
trial_lifecycle AS (
    SELECT
        ResourceAttributes['harbor.job.name'] AS job,
        ResourceAttributes['harbor.trial.name'] AS trial,
        1 AS has_lifecycle,
        countIf(SpanName = 'harbor.trial') > 0 AS finished,
        -- phase durations in seconds: the extent of the phase's spans (NULL when the phase never ran)
        (maxIfOrNull(toUnixTimestamp64Nano(Timestamp) + Duration, SpanName = 'harbor.trial')
         - minIfOrNull(toUnixTimestamp64Nano(Timestamp), SpanName = 'harbor.trial')) / 1e9 AS total_s,
        (maxIfOrNull(toUnixTimestamp64Nano(Timestamp) + Duration, SpanName = 'harbor.environment_setup')
         - minIfOrNull(toUnixTimestamp64Nano(Timestamp), SpanName = 'harbor.environment_setup')) / 1e9 AS env_s,
        (maxIfOrNull(toUnixTimestamp64Nano(Timestamp) + Duration, SpanName = 'harbor.agent_setup')
         - minIfOrNull(toUnixTimestamp64Nano(Timestamp), SpanName = 'harbor.agent_setup')) / 1e9 AS agent_setup_s,
        (maxIfOrNull(toUnixTimestamp64Nano(Timestamp) + Duration, SpanName = 'harbor.agent_execution')
         - minIfOrNull(toUnixTimestamp64Nano(Timestamp), SpanName = 'harbor.agent_execution')) / 1e9 AS agent_s,
        (maxIfOrNull(toUnixTimestamp64Nano(Timestamp) + Duration, SpanName = 'harbor.verifier')
         - minIfOrNull(toUnixTimestamp64Nano(Timestamp), SpanName = 'harbor.verifier')) / 1e9 AS verifier_s,
        -- the newest verifier span's rewards and report (harbor.reward.*, harbor.verifier.*)
        argMaxIf(SpanAttributes, Timestamp, SpanName = 'harbor.verifier') AS verifier_attributes,
        -- the earliest exception event of any lifecycle span: (time, type, message)
        arrayFirst(e -> e.2 != '', arraySort(e -> e.1, groupArrayArray(
            arrayMap(i -> (`Events.Timestamp`[i], `Events.Attributes`[i]['exception.type'],
                           `Events.Attributes`[i]['exception.message']),
                     arrayFilter(i -> `Events.Name`[i] = 'exception', arrayEnumerate(`Events.Name`)))))) AS exception
    FROM otel_traces
    WHERE ResourceAttributes['harbor.job.name'] IN (${job:sqlstring})
      AND SpanName IN ('harbor.trial', 'harbor.environment_setup', 'harbor.agent_setup', 'harbor.agent_execution',
                       'harbor.verifier')
    GROUP BY job, trial
),
trial_facts AS (
    SELECT
        e.*,
        l.has_lifecycle = 1 AND NOT l.finished AS running,
        l.total_s AS total_s, l.env_s AS env_s, l.agent_setup_s AS agent_setup_s, l.agent_s AS agent_s,
        l.verifier_s AS verifier_s,
        mapFilter((k, v) -> startsWith(k, 'harbor.reward.'), l.verifier_attributes) AS rewards,
        toFloat64OrNull(if(mapContains(rewards, 'harbor.reward.reward'), rewards['harbor.reward.reward'],
                           arrayElement(mapValues(mapSort(rewards)), 1))) AS reward,
        lower(l.verifier_attributes['harbor.verifier.resolved']) AS report_resolved,
        lower(l.verifier_attributes['harbor.verifier.patch_exists']) AS report_patch_exists,
        lower(l.verifier_attributes['harbor.verifier.patch_applied']) AS report_patch_applied,
        l.exception.2 AS exception_type,
        l.exception.3 AS exception_message
    FROM trial_events AS e
    LEFT JOIN trial_lifecycle AS l ON l.job = e.job AND l.trial = e.trial
),
trial_outcomes AS (
    SELECT
        *,
        -- the exception's class: Harbor's exception names (the hidden dashboard constants), else the
        -- API's heuristic for an unlisted exception in a trial that saw 429s, else unknown
        multiIf(exception_type = '', '',
                exception_type IN (${setup_errors}), 'setup_error',
                exception_type IN (${rate_limit_errors}), 'rate_limited',
                exception_type IN (${api_errors}), 'api_error',
                exception_type IN (${agent_errors}), 'agent_error',
                exception_type IN (${verifier_errors}), 'failed_verification',
                rate_limited_calls > 0
                    AND match(concat(exception_type, ' ', exception_message), '(?i)\\b429\\b|rate[ _-]?limit'),
                    'rate_limited',
                'unknown') AS exception_class,
        exception_class IN ('', 'agent_error') AS reward_valid,
        -- the first rule that matches wins, in the API's precedence
        multiIf(running, 'running',
                exception_class IN ('setup_error', 'rate_limited', 'api_error'), exception_class,
                reward_valid AND if(report_resolved != '', report_resolved IN ('true', '1'),
                                    ifNull(reward >= 1, false)), 'resolved',
                reward_valid AND ifNull(reward > 0 AND reward < 1, false), 'scored',
                reward_valid AND report_patch_exists NOT IN ('', 'true', '1'), 'no_patch',
                reward_valid AND report_patch_applied NOT IN ('', 'true', '1'), 'patch_not_applied',
                reward_valid AND report_patch_applied IN ('true', '1') AND report_resolved NOT IN ('', 'true', '1'),
                    'patch_failed_tests',
                exception_class = 'agent_error', 'agent_error',
                (reward_valid AND (reward IS NOT NULL OR report_resolved != ''))
                    OR exception_class = 'failed_verification', 'failed_verification',
                'unknown') AS outcome,
        outcome IN ('rate_limited', 'api_error', 'setup_error') AS infra,
        outcome IN ('resolved', 'patch_failed_tests', 'failed_verification', 'patch_not_applied', 'no_patch') AS verdict
    FROM trial_facts
)
