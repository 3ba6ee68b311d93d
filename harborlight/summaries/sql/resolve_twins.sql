-- Written by `python -m harborlight.summaries.sql_files` (harborlight/summaries/resolve.py): edit the code.
INSERT INTO resolved_events (Timestamp, EndTimestamp, DurationNs, TimingQuality, EventId, TraceId, SpanId, ParentSpanId, SourceTable, Kind, KindRule, Resolve, Name, ServiceName, ScopeName, Tenant, JobName, TrialName, Attempt, TaskName, AgentName, Model, Provider, InputTokens, CachedTokens, CacheWriteTokens, OutputTokens, ReasoningTokens, CostUsd, HttpStatus, ErrorType, Success, ToolName, ToolCategory, ToolCallId, TargetPaths, Provenance, RequestId, AgentVersion, SideCall, SessionId, TrialKey, JobKey, TwinId, OuterTelling, Version, Deleted)
SELECT Timestamp, EndTimestamp, DurationNs, TimingQuality, EventId, TraceId, SpanId, ParentSpanId, SourceTable, Kind, KindRule, Resolve, Name, ServiceName, ScopeName, Tenant, JobName, TrialName, Attempt, TaskName, AgentName, Model, Provider, InputTokens, CachedTokens, CacheWriteTokens, OutputTokens, ReasoningTokens, CostUsd, HttpStatus, ErrorType, Success, ToolName, ToolCategory, ToolCallId, TargetPaths, Provenance, RequestId, AgentVersion, SideCall, SessionId, coalesce(TrialName, TraceId), ifNull(JobName, ''), TwinId, OuterTelling, {version:UInt64}, 0 FROM (
SELECT Timestamp, EndTimestamp, DurationNs, TimingQuality, EventId, TraceId, SpanId, ParentSpanId, SourceTable, Kind, KindRule, Resolve, Name, ServiceName, ScopeName, Tenant, JobName, if(Kind = 'group' AND SourceTable = 'otel_traces' AND TrialName = TraceId, NULL, TrialName) AS TrialName, Attempt, TaskName, AgentName, Model, Provider, InputTokens, CachedTokens, CacheWriteTokens, OutputTokens, ReasoningTokens, CostUsd, HttpStatus, ErrorType, Success, ToolName, ToolCategory, ToolCallId, TargetPaths, Provenance, RequestId, AgentVersion, SideCall, SessionId, _twin_id AS TwinId, false AS OuterTelling FROM (
SELECT * EXCEPT (_paired, _t_CostUsd, _t_InputTokens, _t_CachedTokens, _t_CacheWriteTokens, _t_OutputTokens, _t_ReasoningTokens, _t_Model, _t_Provider, _t_HttpStatus, _t_ErrorType, _t_Success, _t_ToolName, _t_ToolCategory, _t_ToolCallId, _t_TargetPaths, _t_RequestId, _t_SideCall, _t_Provenance, _take0, _take1, _take2, _take3, _take4, _take5, _take6, _take7, _take8, _take9, _take10, _take11) REPLACE (if(_take0, _t_CostUsd, CostUsd) AS CostUsd, if(_take1, _t_InputTokens, InputTokens) AS InputTokens, if(_take1, _t_CachedTokens, CachedTokens) AS CachedTokens, if(_take1, _t_CacheWriteTokens, CacheWriteTokens) AS CacheWriteTokens, if(_take1, _t_OutputTokens, OutputTokens) AS OutputTokens, if(_take1, _t_ReasoningTokens, ReasoningTokens) AS ReasoningTokens, if(_take2, _t_Model, Model) AS Model, if(_take3, _t_Provider, Provider) AS Provider, if(_take4, _t_HttpStatus, HttpStatus) AS HttpStatus, if(_take5, _t_ErrorType, ErrorType) AS ErrorType, if(_take6, _t_Success, Success) AS Success, if(_take7, _t_ToolName, ToolName) AS ToolName, if(_take7, _t_ToolCategory, ToolCategory) AS ToolCategory, if(_take8, _t_ToolCallId, ToolCallId) AS ToolCallId, if(_take9, _t_TargetPaths, TargetPaths) AS TargetPaths, if(_take10, _t_RequestId, RequestId) AS RequestId, if(_take11, _t_SideCall, SideCall) AS SideCall, if(_paired, mapUpdate(Provenance, mapFilter((k, v) -> has(arrayConcat(if(_take0, ['cost_usd'], []), if(_take1, ['input_tokens', 'cached_tokens', 'cache_write_tokens', 'output_tokens', 'reasoning_tokens'], []), if(_take2, ['model'], []), if(_take3, ['provider'], []), if(_take4, ['http_status'], []), if(_take5, ['error_type'], []), if(_take6, ['success'], []), if(_take7, ['tool_name', 'tool_category'], []), if(_take8, ['tool_call_id'], []), if(_take9, ['target_paths'], []), if(_take10, ['request_id'], []), if(_take11, ['side_call'], [])), k), _t_Provenance)), Provenance) AS Provenance)
FROM (
    SELECT *, _paired AND (isNull(CostUsd) OR (Provenance['cost_usd'] = 'inferred' AND _t_Provenance['cost_usd'] IN ('measured', 'derived'))) AS _take0, _paired AND isNotNull(_t_InputTokens) + isNotNull(_t_CachedTokens) + isNotNull(_t_CacheWriteTokens) + isNotNull(_t_OutputTokens) + isNotNull(_t_ReasoningTokens) > isNotNull(InputTokens) + isNotNull(CachedTokens) + isNotNull(CacheWriteTokens) + isNotNull(OutputTokens) + isNotNull(ReasoningTokens) AS _take1, _paired AND (isNull(Model) OR (Provenance['model'] = 'inferred' AND _t_Provenance['model'] IN ('measured', 'derived'))) AS _take2, _paired AND (isNull(Provider) OR (Provenance['provider'] = 'inferred' AND _t_Provenance['provider'] IN ('measured', 'derived'))) AS _take3, _paired AND (isNull(HttpStatus) OR (Provenance['http_status'] = 'inferred' AND _t_Provenance['http_status'] IN ('measured', 'derived'))) AS _take4, _paired AND (isNull(ErrorType) OR (Provenance['error_type'] = 'inferred' AND _t_Provenance['error_type'] IN ('measured', 'derived'))) AS _take5, _paired AND ((isNull(Success) OR _t_Success = false) OR (Provenance['success'] = 'inferred' AND _t_Provenance['success'] IN ('measured', 'derived'))) AS _take6, _paired AND isNotNull(_t_ToolName) + isNotNull(_t_ToolCategory) > isNotNull(ToolName) + isNotNull(ToolCategory) AS _take7, _paired AND (isNull(ToolCallId) OR (Provenance['tool_call_id'] = 'inferred' AND _t_Provenance['tool_call_id'] IN ('measured', 'derived'))) AS _take8, _paired AND empty(TargetPaths) AS _take9, _paired AND (isNull(RequestId) OR (Provenance['request_id'] = 'inferred' AND _t_Provenance['request_id'] IN ('measured', 'derived'))) AS _take10, _paired AND (isNull(SideCall) OR (Provenance['side_call'] = 'inferred' AND _t_Provenance['side_call'] IN ('measured', 'derived'))) AS _take11
    FROM (
        SELECT _e.*, _f.* EXCEPT (_k0, _k1, _k2, _k3, _k4, _k5, _k6, EventId)
        FROM (SELECT * FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR (TrialName IS NULL AND (TraceId IN {trials:Array(String)} OR ({nameless:Bool} AND TraceId = ''))))) AND (Tenant, isNull(JobName), ifNull(JobName, ''), isNull(TrialName), ifNull(TrialName, ''), ServiceName, Kind, EventId) NOT IN (SELECT _k0, _k1, _k2, _k3, _k4, _k5, _k6, _twin_id FROM (
        SELECT _k0, _k1, _k2, _k3, _k4, _k5, _k6, EventId, _twin_id
        FROM (
            SELECT *, anyIf(EventId, SourceTable != _kept) OVER same_call AS _twin_id,
                   countIf(SourceTable != _kept) OVER same_call AS _n_twins,
                   countIf(SourceTable = _kept) OVER same_call AS _n_kept
            FROM (
                SELECT _k0, _k1, _k2, _k3, _k4, _k5, _k6, SourceTable, EventId, _kept,
                       multiIf(_by_id, ToolCallId, _by_request, RequestId, _by_order, toString(row_number() OVER (
                           PARTITION BY _k0, _k1, _k2, _k3, _k4, _k5, _k6, SourceTable ORDER BY Timestamp, EventId)), NULL) AS _match
                FROM (
                    SELECT _k0, _k1, _k2, _k3, _k4, _k5, _k6, SourceTable, EventId, Timestamp, ToolCallId, RequestId,
                           if(_logs > _spans, 'otel_logs', 'otel_traces') AS _kept,
                           _span_ids > 0 AND _log_ids > 0 AS _by_id,
                           _span_requests > 0 AND _log_requests > 0 AS _by_request, _spans = _logs AS _by_order
                    FROM (SELECT Tenant AS _k0, isNull(JobName) AS _k1, ifNull(JobName, '') AS _k2, isNull(TrialName) AS _k3, ifNull(TrialName, '') AS _k4, ServiceName AS _k5, Kind AS _k6, SourceTable, EventId, Timestamp, ToolCallId, RequestId
                          FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR (TrialName IS NULL AND (TraceId IN {trials:Array(String)} OR ({nameless:Bool} AND TraceId = '')))))) AS _r
                    -- (each row's group counts; only groups of both signals)
                    INNER JOIN (
                        SELECT Tenant AS _k0, isNull(JobName) AS _k1, ifNull(JobName, '') AS _k2, isNull(TrialName) AS _k3, ifNull(TrialName, '') AS _k4, ServiceName AS _k5, Kind AS _k6, countIf(SourceTable = 'otel_traces') AS _spans, countIf(SourceTable = 'otel_logs') AS _logs,
                               countIf(SourceTable = 'otel_traces' AND ToolCallId IS NOT NULL) AS _span_ids,
                               countIf(SourceTable = 'otel_logs' AND ToolCallId IS NOT NULL) AS _log_ids,
                               countIf(SourceTable = 'otel_traces' AND RequestId IS NOT NULL) AS _span_requests,
                               countIf(SourceTable = 'otel_logs' AND RequestId IS NOT NULL) AS _log_requests
                        FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR (TrialName IS NULL AND (TraceId IN {trials:Array(String)} OR ({nameless:Bool} AND TraceId = '')))))
                        GROUP BY _k0, _k1, _k2, _k3, _k4, _k5, _k6 HAVING _spans > 0 AND _logs > 0
                    ) AS _g USING (_k0, _k1, _k2, _k3, _k4, _k5, _k6)
                )
            )
            WINDOW same_call AS (PARTITION BY _k0, _k1, _k2, _k3, _k4, _k5, _k6, _match)
        )
        WHERE SourceTable = _kept AND _match IS NOT NULL AND _n_twins = 1 AND _n_kept = 1))
    AND NOT (ScopeName IN ('harborlight.atif', 'harbor-atif2otel') AND Resolve != 'agent' AND (Tenant, isNull(JobName), ifNull(JobName, ''), isNull(TrialName), ifNull(TrialName, ''), ServiceName, Kind) IN (
        SELECT _k0, _k1, _k2, _k3, _k4, _service, Kind FROM (
            SELECT Tenant AS _k0, isNull(JobName) AS _k1, ifNull(JobName, '') AS _k2, isNull(TrialName) AS _k3, ifNull(TrialName, '') AS _k4, Kind,
                   groupUniqArrayIf(ServiceName, NOT ScopeName IN ('harborlight.atif', 'harbor-atif2otel')) AS _live, groupUniqArrayIf(ServiceName, ScopeName IN ('harborlight.atif', 'harbor-atif2otel')) AS _retelling
            FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR (TrialName IS NULL AND (TraceId IN {trials:Array(String)} OR ({nameless:Bool} AND TraceId = '')))))
            GROUP BY _k0, _k1, _k2, _k3, _k4, Kind
            HAVING notEmpty(_live) AND notEmpty(_retelling))
        ARRAY JOIN _retelling AS _service
        WHERE arrayExists(s -> s != _service, _live)))
    AND NOT (Kind = 'user_message' AND SourceTable = 'otel_logs' AND Name IN ('gen_ai.user.message',) AND (Tenant, isNull(JobName), ifNull(JobName, ''), isNull(TrialName), ifNull(TrialName, ''), ServiceName, Kind, EventId) IN (
        SELECT _k0, _k1, _k2, _k3, _k4, _k5, _k6, _m.2 AS EventId FROM (
            SELECT _k0, _k1, _k2, _k3, _k4, _k5, _k6, _messages, lagInFrame(length(_messages), 1, 0) OVER (
                PARTITION BY _k0, _k1, _k2, _k3, _k4, _k5, _k6 ORDER BY _at, _call ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS _told
            FROM (
                SELECT Tenant AS _k0, isNull(JobName) AS _k1, ifNull(JobName, '') AS _k2, isNull(TrialName) AS _k3, ifNull(TrialName, '') AS _k4, ServiceName AS _k5, Kind AS _k6, (TraceId, SpanId) AS _call, min(Timestamp) AS _at,
                       arraySort(groupArray((Timestamp, EventId))) AS _messages
                FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR (TrialName IS NULL AND (TraceId IN {trials:Array(String)} OR ({nameless:Bool} AND TraceId = ''))))) AND Kind = 'user_message' AND SourceTable = 'otel_logs' AND Name IN ('gen_ai.user.message',)
                GROUP BY _k0, _k1, _k2, _k3, _k4, _k5, _k6, _call))
        ARRAY JOIN arraySlice(_messages, 1, _told) AS _m))
    AND NOT (SourceTable = 'otel_traces' AND (Kind = 'llm_request' OR position(EventId, ':') > 0) AND (Tenant, TraceId, SpanId) IN (
        SELECT _o.Tenant, _o.TraceId, _o.SpanId
        FROM (SELECT Tenant, TraceId, SpanId, ParentSpanId, ScopeName, RequestId, InputTokens, OutputTokens, JobName, TrialName, isNull(Model) AND isNull(InputTokens) AND isNull(OutputTokens) AND isNull(HttpStatus) AS _bare FROM agent_events WHERE Kind = 'llm_request' AND SourceTable = 'otel_traces' AND (Tenant, TraceId) IN (SELECT Tenant, TraceId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR (TrialName IS NULL AND (TraceId IN {trials:Array(String)} OR ({nameless:Bool} AND TraceId = ''))))) AND SourceTable = 'otel_traces')) AS _o
        INNER JOIN (SELECT Tenant, TraceId, SpanId, ParentSpanId, ScopeName, RequestId, InputTokens, OutputTokens, JobName, TrialName, isNull(Model) AND isNull(InputTokens) AND isNull(OutputTokens) AND isNull(HttpStatus) AS _bare FROM agent_events WHERE Kind = 'llm_request' AND SourceTable = 'otel_traces' AND (Tenant, TraceId) IN (SELECT Tenant, TraceId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR (TrialName IS NULL AND (TraceId IN {trials:Array(String)} OR ({nameless:Bool} AND TraceId = ''))))) AND SourceTable = 'otel_traces')) AS _i
            ON _i.Tenant = _o.Tenant AND _i.TraceId = _o.TraceId AND _i.ParentSpanId = _o.SpanId
        WHERE ifNull(_o.JobName = _i.JobName, true) AND ifNull(_o.TrialName = _i.TrialName, true) AND (_o._bare OR (_o.ScopeName != _i.ScopeName AND (_o.RequestId = _i.RequestId
           OR (_o.InputTokens = _i.InputTokens AND _o.OutputTokens = _i.OutputTokens)
           OR (isNull(_o.InputTokens) AND isNull(_o.OutputTokens)))))
        UNION DISTINCT
        SELECT _o.Tenant, _o.TraceId, _o.SpanId
        FROM (SELECT Tenant, TraceId, SpanId, ParentSpanId, ScopeName, RequestId, InputTokens, OutputTokens, JobName, TrialName, isNull(Model) AND isNull(InputTokens) AND isNull(OutputTokens) AND isNull(HttpStatus) AS _bare FROM agent_events WHERE Kind = 'llm_request' AND SourceTable = 'otel_traces' AND (Tenant, TraceId) IN (SELECT Tenant, TraceId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR (TrialName IS NULL AND (TraceId IN {trials:Array(String)} OR ({nameless:Bool} AND TraceId = ''))))) AND SourceTable = 'otel_traces')) AS _o
        INNER JOIN (SELECT Tenant, TraceId, SpanId, ParentSpanId FROM agent_events WHERE SourceTable = 'otel_traces' AND Kind != 'llm_request' AND (Tenant, TraceId) IN (SELECT Tenant, TraceId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR (TrialName IS NULL AND (TraceId IN {trials:Array(String)} OR ({nameless:Bool} AND TraceId = ''))))) AND SourceTable = 'otel_traces')) AS _s ON _s.Tenant = _o.Tenant AND _s.TraceId = _o.TraceId AND _s.ParentSpanId = _o.SpanId
        INNER JOIN (SELECT Tenant, TraceId, SpanId, ParentSpanId, ScopeName, RequestId, InputTokens, OutputTokens, JobName, TrialName, isNull(Model) AND isNull(InputTokens) AND isNull(OutputTokens) AND isNull(HttpStatus) AS _bare FROM agent_events WHERE Kind = 'llm_request' AND SourceTable = 'otel_traces' AND (Tenant, TraceId) IN (SELECT Tenant, TraceId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR (TrialName IS NULL AND (TraceId IN {trials:Array(String)} OR ({nameless:Bool} AND TraceId = ''))))) AND SourceTable = 'otel_traces')) AS _i ON _i.Tenant = _s.Tenant AND _i.TraceId = _s.TraceId AND _i.ParentSpanId = _s.SpanId
        WHERE _o._bare AND ifNull(_o.JobName = _i.JobName, true) AND ifNull(_o.TrialName = _i.TrialName, true)))
    AND NOT (Kind = 'tool' AND SourceTable = 'otel_traces' AND (Tenant, TraceId, SpanId) IN (
        SELECT Tenant, TraceId, SpanId FROM (
            SELECT Tenant, TraceId, SpanId, row_number() OVER (
                PARTITION BY Tenant, TraceId, JobName, TrialName, ToolCallId
                ORDER BY Provenance['arguments'] = '', Timestamp, EventId) AS _nth
            FROM agent_events
            WHERE Kind = 'tool' AND SourceTable = 'otel_traces' AND ifNull(ToolCallId, '') != '' AND (Tenant, TraceId) IN (SELECT Tenant, TraceId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR (TrialName IS NULL AND (TraceId IN {trials:Array(String)} OR ({nameless:Bool} AND TraceId = ''))))) AND SourceTable = 'otel_traces'))
        WHERE _nth > 1))
    AND NOT (position(EventId, ':') > 0 AND (Tenant, isNull(JobName), ifNull(JobName, ''), isNull(TrialName), ifNull(TrialName, ''), ServiceName, ParentSpanId) IN (SELECT _k0, _k1, _k2, _k3, _k4, _k5, _twin_id FROM (
        SELECT _k0, _k1, _k2, _k3, _k4, _k5, _k6, EventId, _twin_id
        FROM (
            SELECT *, anyIf(EventId, SourceTable != _kept) OVER same_call AS _twin_id,
                   countIf(SourceTable != _kept) OVER same_call AS _n_twins,
                   countIf(SourceTable = _kept) OVER same_call AS _n_kept
            FROM (
                SELECT _k0, _k1, _k2, _k3, _k4, _k5, _k6, SourceTable, EventId, _kept,
                       multiIf(_by_id, ToolCallId, _by_request, RequestId, _by_order, toString(row_number() OVER (
                           PARTITION BY _k0, _k1, _k2, _k3, _k4, _k5, _k6, SourceTable ORDER BY Timestamp, EventId)), NULL) AS _match
                FROM (
                    SELECT _k0, _k1, _k2, _k3, _k4, _k5, _k6, SourceTable, EventId, Timestamp, ToolCallId, RequestId,
                           if(_logs > _spans, 'otel_logs', 'otel_traces') AS _kept,
                           _span_ids > 0 AND _log_ids > 0 AS _by_id,
                           _span_requests > 0 AND _log_requests > 0 AS _by_request, _spans = _logs AS _by_order
                    FROM (SELECT Tenant AS _k0, isNull(JobName) AS _k1, ifNull(JobName, '') AS _k2, isNull(TrialName) AS _k3, ifNull(TrialName, '') AS _k4, ServiceName AS _k5, Kind AS _k6, SourceTable, EventId, Timestamp, ToolCallId, RequestId
                          FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR (TrialName IS NULL AND (TraceId IN {trials:Array(String)} OR ({nameless:Bool} AND TraceId = '')))))) AS _r
                    -- (each row's group counts; only groups of both signals)
                    INNER JOIN (
                        SELECT Tenant AS _k0, isNull(JobName) AS _k1, ifNull(JobName, '') AS _k2, isNull(TrialName) AS _k3, ifNull(TrialName, '') AS _k4, ServiceName AS _k5, Kind AS _k6, countIf(SourceTable = 'otel_traces') AS _spans, countIf(SourceTable = 'otel_logs') AS _logs,
                               countIf(SourceTable = 'otel_traces' AND ToolCallId IS NOT NULL) AS _span_ids,
                               countIf(SourceTable = 'otel_logs' AND ToolCallId IS NOT NULL) AS _log_ids,
                               countIf(SourceTable = 'otel_traces' AND RequestId IS NOT NULL) AS _span_requests,
                               countIf(SourceTable = 'otel_logs' AND RequestId IS NOT NULL) AS _log_requests
                        FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR (TrialName IS NULL AND (TraceId IN {trials:Array(String)} OR ({nameless:Bool} AND TraceId = '')))))
                        GROUP BY _k0, _k1, _k2, _k3, _k4, _k5, _k6 HAVING _spans > 0 AND _logs > 0
                    ) AS _g USING (_k0, _k1, _k2, _k3, _k4, _k5, _k6)
                )
            )
            WINDOW same_call AS (PARTITION BY _k0, _k1, _k2, _k3, _k4, _k5, _k6, _match)
        )
        WHERE SourceTable = _kept AND _match IS NOT NULL AND _n_twins = 1 AND _n_kept = 1)))) AS _e
        LEFT JOIN (
            SELECT _p.*, true AS _paired, _t._t_CostUsd, _t._t_InputTokens, _t._t_CachedTokens, _t._t_CacheWriteTokens, _t._t_OutputTokens, _t._t_ReasoningTokens, _t._t_Model, _t._t_Provider, _t._t_HttpStatus, _t._t_ErrorType, _t._t_Success, _t._t_ToolName, _t._t_ToolCategory, _t._t_ToolCallId, _t._t_TargetPaths, _t._t_RequestId, _t._t_SideCall, _t._t_Provenance
            FROM (
        SELECT _k0, _k1, _k2, _k3, _k4, _k5, _k6, EventId, _twin_id
        FROM (
            SELECT *, anyIf(EventId, SourceTable != _kept) OVER same_call AS _twin_id,
                   countIf(SourceTable != _kept) OVER same_call AS _n_twins,
                   countIf(SourceTable = _kept) OVER same_call AS _n_kept
            FROM (
                SELECT _k0, _k1, _k2, _k3, _k4, _k5, _k6, SourceTable, EventId, _kept,
                       multiIf(_by_id, ToolCallId, _by_request, RequestId, _by_order, toString(row_number() OVER (
                           PARTITION BY _k0, _k1, _k2, _k3, _k4, _k5, _k6, SourceTable ORDER BY Timestamp, EventId)), NULL) AS _match
                FROM (
                    SELECT _k0, _k1, _k2, _k3, _k4, _k5, _k6, SourceTable, EventId, Timestamp, ToolCallId, RequestId,
                           if(_logs > _spans, 'otel_logs', 'otel_traces') AS _kept,
                           _span_ids > 0 AND _log_ids > 0 AS _by_id,
                           _span_requests > 0 AND _log_requests > 0 AS _by_request, _spans = _logs AS _by_order
                    FROM (SELECT Tenant AS _k0, isNull(JobName) AS _k1, ifNull(JobName, '') AS _k2, isNull(TrialName) AS _k3, ifNull(TrialName, '') AS _k4, ServiceName AS _k5, Kind AS _k6, SourceTable, EventId, Timestamp, ToolCallId, RequestId
                          FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR (TrialName IS NULL AND (TraceId IN {trials:Array(String)} OR ({nameless:Bool} AND TraceId = '')))))) AS _r
                    -- (each row's group counts; only groups of both signals)
                    INNER JOIN (
                        SELECT Tenant AS _k0, isNull(JobName) AS _k1, ifNull(JobName, '') AS _k2, isNull(TrialName) AS _k3, ifNull(TrialName, '') AS _k4, ServiceName AS _k5, Kind AS _k6, countIf(SourceTable = 'otel_traces') AS _spans, countIf(SourceTable = 'otel_logs') AS _logs,
                               countIf(SourceTable = 'otel_traces' AND ToolCallId IS NOT NULL) AS _span_ids,
                               countIf(SourceTable = 'otel_logs' AND ToolCallId IS NOT NULL) AS _log_ids,
                               countIf(SourceTable = 'otel_traces' AND RequestId IS NOT NULL) AS _span_requests,
                               countIf(SourceTable = 'otel_logs' AND RequestId IS NOT NULL) AS _log_requests
                        FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR (TrialName IS NULL AND (TraceId IN {trials:Array(String)} OR ({nameless:Bool} AND TraceId = '')))))
                        GROUP BY _k0, _k1, _k2, _k3, _k4, _k5, _k6 HAVING _spans > 0 AND _logs > 0
                    ) AS _g USING (_k0, _k1, _k2, _k3, _k4, _k5, _k6)
                )
            )
            WINDOW same_call AS (PARTITION BY _k0, _k1, _k2, _k3, _k4, _k5, _k6, _match)
        )
        WHERE SourceTable = _kept AND _match IS NOT NULL AND _n_twins = 1 AND _n_kept = 1) AS _p
            INNER JOIN (
                SELECT Tenant AS _tk0, isNull(JobName) AS _tk1, ifNull(JobName, '') AS _tk2, isNull(TrialName) AS _tk3, ifNull(TrialName, '') AS _tk4, ServiceName AS _tk5, Kind AS _tk6, EventId AS _t_id,
                       CostUsd AS _t_CostUsd, InputTokens AS _t_InputTokens, CachedTokens AS _t_CachedTokens, CacheWriteTokens AS _t_CacheWriteTokens, OutputTokens AS _t_OutputTokens, ReasoningTokens AS _t_ReasoningTokens, Model AS _t_Model, Provider AS _t_Provider, HttpStatus AS _t_HttpStatus, ErrorType AS _t_ErrorType, Success AS _t_Success, ToolName AS _t_ToolName, ToolCategory AS _t_ToolCategory, ToolCallId AS _t_ToolCallId, TargetPaths AS _t_TargetPaths, RequestId AS _t_RequestId, SideCall AS _t_SideCall, Provenance AS _t_Provenance
                FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR (TrialName IS NULL AND (TraceId IN {trials:Array(String)} OR ({nameless:Bool} AND TraceId = ''))))) AND (Tenant, isNull(JobName), ifNull(JobName, ''), isNull(TrialName), ifNull(TrialName, ''), ServiceName, Kind, EventId) IN (SELECT _k0, _k1, _k2, _k3, _k4, _k5, _k6, _twin_id FROM (
        SELECT _k0, _k1, _k2, _k3, _k4, _k5, _k6, EventId, _twin_id
        FROM (
            SELECT *, anyIf(EventId, SourceTable != _kept) OVER same_call AS _twin_id,
                   countIf(SourceTable != _kept) OVER same_call AS _n_twins,
                   countIf(SourceTable = _kept) OVER same_call AS _n_kept
            FROM (
                SELECT _k0, _k1, _k2, _k3, _k4, _k5, _k6, SourceTable, EventId, _kept,
                       multiIf(_by_id, ToolCallId, _by_request, RequestId, _by_order, toString(row_number() OVER (
                           PARTITION BY _k0, _k1, _k2, _k3, _k4, _k5, _k6, SourceTable ORDER BY Timestamp, EventId)), NULL) AS _match
                FROM (
                    SELECT _k0, _k1, _k2, _k3, _k4, _k5, _k6, SourceTable, EventId, Timestamp, ToolCallId, RequestId,
                           if(_logs > _spans, 'otel_logs', 'otel_traces') AS _kept,
                           _span_ids > 0 AND _log_ids > 0 AS _by_id,
                           _span_requests > 0 AND _log_requests > 0 AS _by_request, _spans = _logs AS _by_order
                    FROM (SELECT Tenant AS _k0, isNull(JobName) AS _k1, ifNull(JobName, '') AS _k2, isNull(TrialName) AS _k3, ifNull(TrialName, '') AS _k4, ServiceName AS _k5, Kind AS _k6, SourceTable, EventId, Timestamp, ToolCallId, RequestId
                          FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR (TrialName IS NULL AND (TraceId IN {trials:Array(String)} OR ({nameless:Bool} AND TraceId = '')))))) AS _r
                    -- (each row's group counts; only groups of both signals)
                    INNER JOIN (
                        SELECT Tenant AS _k0, isNull(JobName) AS _k1, ifNull(JobName, '') AS _k2, isNull(TrialName) AS _k3, ifNull(TrialName, '') AS _k4, ServiceName AS _k5, Kind AS _k6, countIf(SourceTable = 'otel_traces') AS _spans, countIf(SourceTable = 'otel_logs') AS _logs,
                               countIf(SourceTable = 'otel_traces' AND ToolCallId IS NOT NULL) AS _span_ids,
                               countIf(SourceTable = 'otel_logs' AND ToolCallId IS NOT NULL) AS _log_ids,
                               countIf(SourceTable = 'otel_traces' AND RequestId IS NOT NULL) AS _span_requests,
                               countIf(SourceTable = 'otel_logs' AND RequestId IS NOT NULL) AS _log_requests
                        FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR (TrialName IS NULL AND (TraceId IN {trials:Array(String)} OR ({nameless:Bool} AND TraceId = '')))))
                        GROUP BY _k0, _k1, _k2, _k3, _k4, _k5, _k6 HAVING _spans > 0 AND _logs > 0
                    ) AS _g USING (_k0, _k1, _k2, _k3, _k4, _k5, _k6)
                )
            )
            WINDOW same_call AS (PARTITION BY _k0, _k1, _k2, _k3, _k4, _k5, _k6, _match)
        )
        WHERE SourceTable = _kept AND _match IS NOT NULL AND _n_twins = 1 AND _n_kept = 1))
            ) AS _t ON (_p._k0, _p._k1, _p._k2, _p._k3, _p._k4, _p._k5, _p._k6, _p._twin_id) = (_tk0, _tk1, _tk2, _tk3, _tk4, _tk5, _tk6, _t._t_id)
        ) AS _f ON (_e.Tenant, isNull(_e.JobName), ifNull(_e.JobName, ''), isNull(_e.TrialName), ifNull(_e.TrialName, ''), _e.ServiceName, _e.Kind, _e.EventId) = (_f._k0, _f._k1, _f._k2, _f._k3, _f._k4, _f._k5, _f._k6, _f.EventId)
    )
))
UNION ALL
SELECT Timestamp, EndTimestamp, DurationNs, TimingQuality, EventId, TraceId, SpanId, ParentSpanId, SourceTable, Kind, KindRule, Resolve, Name, ServiceName, ScopeName, Tenant, JobName, if(Kind = 'group' AND SourceTable = 'otel_traces' AND TrialName = TraceId, NULL, TrialName) AS TrialName, Attempt, TaskName, AgentName, Model, Provider, InputTokens, CachedTokens, CacheWriteTokens, OutputTokens, ReasoningTokens, CostUsd, HttpStatus, ErrorType, Success, ToolName, ToolCategory, ToolCallId, TargetPaths, Provenance, RequestId, AgentVersion, SideCall, SessionId, '', true FROM (SELECT * REPLACE ('group' AS Kind) FROM (SELECT * FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR (TrialName IS NULL AND (TraceId IN {trials:Array(String)} OR ({nameless:Bool} AND TraceId = ''))))) AND ((Kind = 'llm_request' AND SourceTable = 'otel_traces' AND (Tenant, TraceId, SpanId) IN (
        SELECT _o.Tenant, _o.TraceId, _o.SpanId
        FROM (SELECT Tenant, TraceId, SpanId, ParentSpanId, ScopeName, RequestId, InputTokens, OutputTokens, JobName, TrialName, isNull(Model) AND isNull(InputTokens) AND isNull(OutputTokens) AND isNull(HttpStatus) AS _bare FROM agent_events WHERE Kind = 'llm_request' AND SourceTable = 'otel_traces' AND (Tenant, TraceId) IN (SELECT Tenant, TraceId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR (TrialName IS NULL AND (TraceId IN {trials:Array(String)} OR ({nameless:Bool} AND TraceId = ''))))) AND SourceTable = 'otel_traces')) AS _o
        INNER JOIN (SELECT Tenant, TraceId, SpanId, ParentSpanId, ScopeName, RequestId, InputTokens, OutputTokens, JobName, TrialName, isNull(Model) AND isNull(InputTokens) AND isNull(OutputTokens) AND isNull(HttpStatus) AS _bare FROM agent_events WHERE Kind = 'llm_request' AND SourceTable = 'otel_traces' AND (Tenant, TraceId) IN (SELECT Tenant, TraceId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR (TrialName IS NULL AND (TraceId IN {trials:Array(String)} OR ({nameless:Bool} AND TraceId = ''))))) AND SourceTable = 'otel_traces')) AS _i
            ON _i.Tenant = _o.Tenant AND _i.TraceId = _o.TraceId AND _i.ParentSpanId = _o.SpanId
        WHERE ifNull(_o.JobName = _i.JobName, true) AND ifNull(_o.TrialName = _i.TrialName, true) AND (_o._bare OR (_o.ScopeName != _i.ScopeName AND (_o.RequestId = _i.RequestId
           OR (_o.InputTokens = _i.InputTokens AND _o.OutputTokens = _i.OutputTokens)
           OR (isNull(_o.InputTokens) AND isNull(_o.OutputTokens)))))
        UNION DISTINCT
        SELECT _o.Tenant, _o.TraceId, _o.SpanId
        FROM (SELECT Tenant, TraceId, SpanId, ParentSpanId, ScopeName, RequestId, InputTokens, OutputTokens, JobName, TrialName, isNull(Model) AND isNull(InputTokens) AND isNull(OutputTokens) AND isNull(HttpStatus) AS _bare FROM agent_events WHERE Kind = 'llm_request' AND SourceTable = 'otel_traces' AND (Tenant, TraceId) IN (SELECT Tenant, TraceId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR (TrialName IS NULL AND (TraceId IN {trials:Array(String)} OR ({nameless:Bool} AND TraceId = ''))))) AND SourceTable = 'otel_traces')) AS _o
        INNER JOIN (SELECT Tenant, TraceId, SpanId, ParentSpanId FROM agent_events WHERE SourceTable = 'otel_traces' AND Kind != 'llm_request' AND (Tenant, TraceId) IN (SELECT Tenant, TraceId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR (TrialName IS NULL AND (TraceId IN {trials:Array(String)} OR ({nameless:Bool} AND TraceId = ''))))) AND SourceTable = 'otel_traces')) AS _s ON _s.Tenant = _o.Tenant AND _s.TraceId = _o.TraceId AND _s.ParentSpanId = _o.SpanId
        INNER JOIN (SELECT Tenant, TraceId, SpanId, ParentSpanId, ScopeName, RequestId, InputTokens, OutputTokens, JobName, TrialName, isNull(Model) AND isNull(InputTokens) AND isNull(OutputTokens) AND isNull(HttpStatus) AS _bare FROM agent_events WHERE Kind = 'llm_request' AND SourceTable = 'otel_traces' AND (Tenant, TraceId) IN (SELECT Tenant, TraceId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR (TrialName IS NULL AND (TraceId IN {trials:Array(String)} OR ({nameless:Bool} AND TraceId = ''))))) AND SourceTable = 'otel_traces')) AS _i ON _i.Tenant = _s.Tenant AND _i.TraceId = _s.TraceId AND _i.ParentSpanId = _s.SpanId
        WHERE _o._bare AND ifNull(_o.JobName = _i.JobName, true) AND ifNull(_o.TrialName = _i.TrialName, true))) OR (Kind = 'tool' AND SourceTable = 'otel_traces' AND (Tenant, TraceId, SpanId) IN (
        SELECT Tenant, TraceId, SpanId FROM (
            SELECT Tenant, TraceId, SpanId, row_number() OVER (
                PARTITION BY Tenant, TraceId, JobName, TrialName, ToolCallId
                ORDER BY Provenance['arguments'] = '', Timestamp, EventId) AS _nth
            FROM agent_events
            WHERE Kind = 'tool' AND SourceTable = 'otel_traces' AND ifNull(ToolCallId, '') != '' AND (Tenant, TraceId) IN (SELECT Tenant, TraceId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR (TrialName IS NULL AND (TraceId IN {trials:Array(String)} OR ({nameless:Bool} AND TraceId = ''))))) AND SourceTable = 'otel_traces'))
        WHERE _nth > 1))))))
