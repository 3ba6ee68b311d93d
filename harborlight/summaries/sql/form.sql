-- Written by `python -m harborlight.summaries.sql_files` (harborlight/summaries/resolve.py): edit the code.
SELECT if(notEmpty(_renames) OR notEmpty(_runs),
          2 + 1 * ((SELECT count() > 0 FROM (
        SELECT 1 FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) OR TrialName IN (SELECT trace FROM (
SELECT concat(Tenant, '/', Job, '/', Name) AS key, Name AS trace, _named.1 AS job, _named.2 AS trial FROM (
    SELECT Tenant, Job, Name, argMinMerge(Namer) AS _named
    FROM agent_names
    WHERE Name IN (SELECT TrialName FROM agent_events WHERE TrialName IN (SELECT TraceId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND TraceId != '' UNION ALL SELECT TrialName FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND TrialName IS NOT NULL UNION ALL SELECT SessionId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND SessionId IS NOT NULL) UNION ALL SELECT TraceId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND (Provenance['trial'] = 'inferred' AND TrialName != TraceId AND TrialName != ifNull(SessionId, '')))
    GROUP BY Tenant, Job, Name)))
        GROUP BY Kind
        HAVING hasAny(groupUniqArrayIf(ServiceName, SourceTable = 'otel_traces'), groupUniqArrayIf(ServiceName, SourceTable = 'otel_logs'))
            OR (countIf(ScopeName IN ('harborlight.atif', 'harbor-atif2otel')) > 0 AND uniqExact(ServiceName) > 1)
            OR uniqExactIf((TraceId, SpanId), Kind = 'user_message' AND SourceTable = 'otel_logs' AND Name IN ('gen_ai.user.message',)) > 1
        LIMIT 1))
        OR (SELECT count() > 0 FROM (
        SELECT _o.Tenant, _o.TraceId, _o.SpanId
        FROM (SELECT Tenant, TraceId, SpanId, ParentSpanId, ScopeName, RequestId, InputTokens, OutputTokens, JobName, TrialName, isNull(Model) AND isNull(InputTokens) AND isNull(OutputTokens) AND isNull(HttpStatus) AS _bare FROM agent_events WHERE Kind = 'llm_request' AND SourceTable = 'otel_traces' AND (Tenant, TraceId) IN (SELECT Tenant, TraceId FROM agent_events WHERE ((Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) OR TrialName IN (SELECT trace FROM (
SELECT concat(Tenant, '/', Job, '/', Name) AS key, Name AS trace, _named.1 AS job, _named.2 AS trial FROM (
    SELECT Tenant, Job, Name, argMinMerge(Namer) AS _named
    FROM agent_names
    WHERE Name IN (SELECT TrialName FROM agent_events WHERE TrialName IN (SELECT TraceId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND TraceId != '' UNION ALL SELECT TrialName FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND TrialName IS NOT NULL UNION ALL SELECT SessionId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND SessionId IS NOT NULL) UNION ALL SELECT TraceId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND (Provenance['trial'] = 'inferred' AND TrialName != TraceId AND TrialName != ifNull(SessionId, '')))
    GROUP BY Tenant, Job, Name)))) AND SourceTable = 'otel_traces')) AS _o
        INNER JOIN (SELECT Tenant, TraceId, SpanId, ParentSpanId, ScopeName, RequestId, InputTokens, OutputTokens, JobName, TrialName, isNull(Model) AND isNull(InputTokens) AND isNull(OutputTokens) AND isNull(HttpStatus) AS _bare FROM agent_events WHERE Kind = 'llm_request' AND SourceTable = 'otel_traces' AND (Tenant, TraceId) IN (SELECT Tenant, TraceId FROM agent_events WHERE ((Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) OR TrialName IN (SELECT trace FROM (
SELECT concat(Tenant, '/', Job, '/', Name) AS key, Name AS trace, _named.1 AS job, _named.2 AS trial FROM (
    SELECT Tenant, Job, Name, argMinMerge(Namer) AS _named
    FROM agent_names
    WHERE Name IN (SELECT TrialName FROM agent_events WHERE TrialName IN (SELECT TraceId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND TraceId != '' UNION ALL SELECT TrialName FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND TrialName IS NOT NULL UNION ALL SELECT SessionId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND SessionId IS NOT NULL) UNION ALL SELECT TraceId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND (Provenance['trial'] = 'inferred' AND TrialName != TraceId AND TrialName != ifNull(SessionId, '')))
    GROUP BY Tenant, Job, Name)))) AND SourceTable = 'otel_traces')) AS _i
            ON _i.Tenant = _o.Tenant AND _i.TraceId = _o.TraceId AND _i.ParentSpanId = _o.SpanId
        WHERE ifNull(_o.JobName = _i.JobName, true) AND ifNull(_o.TrialName = _i.TrialName, true) AND (_o._bare OR (_o.ScopeName != _i.ScopeName AND (_o.RequestId = _i.RequestId
           OR (_o.InputTokens = _i.InputTokens AND _o.OutputTokens = _i.OutputTokens)
           OR (isNull(_o.InputTokens) AND isNull(_o.OutputTokens)))))
        UNION DISTINCT
        SELECT _o.Tenant, _o.TraceId, _o.SpanId
        FROM (SELECT Tenant, TraceId, SpanId, ParentSpanId, ScopeName, RequestId, InputTokens, OutputTokens, JobName, TrialName, isNull(Model) AND isNull(InputTokens) AND isNull(OutputTokens) AND isNull(HttpStatus) AS _bare FROM agent_events WHERE Kind = 'llm_request' AND SourceTable = 'otel_traces' AND (Tenant, TraceId) IN (SELECT Tenant, TraceId FROM agent_events WHERE ((Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) OR TrialName IN (SELECT trace FROM (
SELECT concat(Tenant, '/', Job, '/', Name) AS key, Name AS trace, _named.1 AS job, _named.2 AS trial FROM (
    SELECT Tenant, Job, Name, argMinMerge(Namer) AS _named
    FROM agent_names
    WHERE Name IN (SELECT TrialName FROM agent_events WHERE TrialName IN (SELECT TraceId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND TraceId != '' UNION ALL SELECT TrialName FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND TrialName IS NOT NULL UNION ALL SELECT SessionId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND SessionId IS NOT NULL) UNION ALL SELECT TraceId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND (Provenance['trial'] = 'inferred' AND TrialName != TraceId AND TrialName != ifNull(SessionId, '')))
    GROUP BY Tenant, Job, Name)))) AND SourceTable = 'otel_traces')) AS _o
        INNER JOIN (SELECT Tenant, TraceId, SpanId, ParentSpanId FROM agent_events WHERE SourceTable = 'otel_traces' AND Kind != 'llm_request' AND (Tenant, TraceId) IN (SELECT Tenant, TraceId FROM agent_events WHERE ((Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) OR TrialName IN (SELECT trace FROM (
SELECT concat(Tenant, '/', Job, '/', Name) AS key, Name AS trace, _named.1 AS job, _named.2 AS trial FROM (
    SELECT Tenant, Job, Name, argMinMerge(Namer) AS _named
    FROM agent_names
    WHERE Name IN (SELECT TrialName FROM agent_events WHERE TrialName IN (SELECT TraceId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND TraceId != '' UNION ALL SELECT TrialName FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND TrialName IS NOT NULL UNION ALL SELECT SessionId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND SessionId IS NOT NULL) UNION ALL SELECT TraceId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND (Provenance['trial'] = 'inferred' AND TrialName != TraceId AND TrialName != ifNull(SessionId, '')))
    GROUP BY Tenant, Job, Name)))) AND SourceTable = 'otel_traces')) AS _s ON _s.Tenant = _o.Tenant AND _s.TraceId = _o.TraceId AND _s.ParentSpanId = _o.SpanId
        INNER JOIN (SELECT Tenant, TraceId, SpanId, ParentSpanId, ScopeName, RequestId, InputTokens, OutputTokens, JobName, TrialName, isNull(Model) AND isNull(InputTokens) AND isNull(OutputTokens) AND isNull(HttpStatus) AS _bare FROM agent_events WHERE Kind = 'llm_request' AND SourceTable = 'otel_traces' AND (Tenant, TraceId) IN (SELECT Tenant, TraceId FROM agent_events WHERE ((Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) OR TrialName IN (SELECT trace FROM (
SELECT concat(Tenant, '/', Job, '/', Name) AS key, Name AS trace, _named.1 AS job, _named.2 AS trial FROM (
    SELECT Tenant, Job, Name, argMinMerge(Namer) AS _named
    FROM agent_names
    WHERE Name IN (SELECT TrialName FROM agent_events WHERE TrialName IN (SELECT TraceId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND TraceId != '' UNION ALL SELECT TrialName FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND TrialName IS NOT NULL UNION ALL SELECT SessionId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND SessionId IS NOT NULL) UNION ALL SELECT TraceId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND (Provenance['trial'] = 'inferred' AND TrialName != TraceId AND TrialName != ifNull(SessionId, '')))
    GROUP BY Tenant, Job, Name)))) AND SourceTable = 'otel_traces')) AS _i ON _i.Tenant = _s.Tenant AND _i.TraceId = _s.TraceId AND _i.ParentSpanId = _s.SpanId
        WHERE _o._bare AND ifNull(_o.JobName = _i.JobName, true) AND ifNull(_o.TrialName = _i.TrialName, true) LIMIT 1))
        OR (SELECT count() > 0 FROM (
        SELECT Tenant, TraceId, SpanId FROM (
            SELECT Tenant, TraceId, SpanId, row_number() OVER (
                PARTITION BY Tenant, TraceId, JobName, TrialName, ToolCallId
                ORDER BY Provenance['arguments'] = '', Timestamp, EventId) AS _nth
            FROM agent_events
            WHERE Kind = 'tool' AND SourceTable = 'otel_traces' AND ifNull(ToolCallId, '') != '' AND (Tenant, TraceId) IN (SELECT Tenant, TraceId FROM agent_events WHERE ((Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) OR TrialName IN (SELECT trace FROM (
SELECT concat(Tenant, '/', Job, '/', Name) AS key, Name AS trace, _named.1 AS job, _named.2 AS trial FROM (
    SELECT Tenant, Job, Name, argMinMerge(Namer) AS _named
    FROM agent_names
    WHERE Name IN (SELECT TrialName FROM agent_events WHERE TrialName IN (SELECT TraceId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND TraceId != '' UNION ALL SELECT TrialName FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND TrialName IS NOT NULL UNION ALL SELECT SessionId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND SessionId IS NOT NULL) UNION ALL SELECT TraceId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND (Provenance['trial'] = 'inferred' AND TrialName != TraceId AND TrialName != ifNull(SessionId, '')))
    GROUP BY Tenant, Job, Name)))) AND SourceTable = 'otel_traces'))
        WHERE _nth > 1 LIMIT 1))),
          1 * ((SELECT count() > 0 FROM (
        SELECT 1 FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL)))
        GROUP BY Tenant, JobName, TrialName, Kind
        HAVING hasAny(groupUniqArrayIf(ServiceName, SourceTable = 'otel_traces'), groupUniqArrayIf(ServiceName, SourceTable = 'otel_logs'))
            OR (countIf(ScopeName IN ('harborlight.atif', 'harbor-atif2otel')) > 0 AND uniqExact(ServiceName) > 1)
            OR uniqExactIf((TraceId, SpanId), Kind = 'user_message' AND SourceTable = 'otel_logs' AND Name IN ('gen_ai.user.message',)) > 1
        LIMIT 1))
        OR (SELECT count() > 0 FROM (
        SELECT _o.Tenant, _o.TraceId, _o.SpanId
        FROM (SELECT Tenant, TraceId, SpanId, ParentSpanId, ScopeName, RequestId, InputTokens, OutputTokens, JobName, TrialName, isNull(Model) AND isNull(InputTokens) AND isNull(OutputTokens) AND isNull(HttpStatus) AS _bare FROM agent_events WHERE Kind = 'llm_request' AND SourceTable = 'otel_traces' AND (Tenant, TraceId) IN (SELECT Tenant, TraceId FROM agent_events WHERE ((Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL)))) AND SourceTable = 'otel_traces')) AS _o
        INNER JOIN (SELECT Tenant, TraceId, SpanId, ParentSpanId, ScopeName, RequestId, InputTokens, OutputTokens, JobName, TrialName, isNull(Model) AND isNull(InputTokens) AND isNull(OutputTokens) AND isNull(HttpStatus) AS _bare FROM agent_events WHERE Kind = 'llm_request' AND SourceTable = 'otel_traces' AND (Tenant, TraceId) IN (SELECT Tenant, TraceId FROM agent_events WHERE ((Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL)))) AND SourceTable = 'otel_traces')) AS _i
            ON _i.Tenant = _o.Tenant AND _i.TraceId = _o.TraceId AND _i.ParentSpanId = _o.SpanId
        WHERE ifNull(_o.JobName = _i.JobName, true) AND ifNull(_o.TrialName = _i.TrialName, true) AND (_o._bare OR (_o.ScopeName != _i.ScopeName AND (_o.RequestId = _i.RequestId
           OR (_o.InputTokens = _i.InputTokens AND _o.OutputTokens = _i.OutputTokens)
           OR (isNull(_o.InputTokens) AND isNull(_o.OutputTokens)))))
        UNION DISTINCT
        SELECT _o.Tenant, _o.TraceId, _o.SpanId
        FROM (SELECT Tenant, TraceId, SpanId, ParentSpanId, ScopeName, RequestId, InputTokens, OutputTokens, JobName, TrialName, isNull(Model) AND isNull(InputTokens) AND isNull(OutputTokens) AND isNull(HttpStatus) AS _bare FROM agent_events WHERE Kind = 'llm_request' AND SourceTable = 'otel_traces' AND (Tenant, TraceId) IN (SELECT Tenant, TraceId FROM agent_events WHERE ((Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL)))) AND SourceTable = 'otel_traces')) AS _o
        INNER JOIN (SELECT Tenant, TraceId, SpanId, ParentSpanId FROM agent_events WHERE SourceTable = 'otel_traces' AND Kind != 'llm_request' AND (Tenant, TraceId) IN (SELECT Tenant, TraceId FROM agent_events WHERE ((Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL)))) AND SourceTable = 'otel_traces')) AS _s ON _s.Tenant = _o.Tenant AND _s.TraceId = _o.TraceId AND _s.ParentSpanId = _o.SpanId
        INNER JOIN (SELECT Tenant, TraceId, SpanId, ParentSpanId, ScopeName, RequestId, InputTokens, OutputTokens, JobName, TrialName, isNull(Model) AND isNull(InputTokens) AND isNull(OutputTokens) AND isNull(HttpStatus) AS _bare FROM agent_events WHERE Kind = 'llm_request' AND SourceTable = 'otel_traces' AND (Tenant, TraceId) IN (SELECT Tenant, TraceId FROM agent_events WHERE ((Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL)))) AND SourceTable = 'otel_traces')) AS _i ON _i.Tenant = _s.Tenant AND _i.TraceId = _s.TraceId AND _i.ParentSpanId = _s.SpanId
        WHERE _o._bare AND ifNull(_o.JobName = _i.JobName, true) AND ifNull(_o.TrialName = _i.TrialName, true) LIMIT 1))
        OR (SELECT count() > 0 FROM (
        SELECT Tenant, TraceId, SpanId FROM (
            SELECT Tenant, TraceId, SpanId, row_number() OVER (
                PARTITION BY Tenant, TraceId, JobName, TrialName, ToolCallId
                ORDER BY Provenance['arguments'] = '', Timestamp, EventId) AS _nth
            FROM agent_events
            WHERE Kind = 'tool' AND SourceTable = 'otel_traces' AND ifNull(ToolCallId, '') != '' AND (Tenant, TraceId) IN (SELECT Tenant, TraceId FROM agent_events WHERE ((Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL)))) AND SourceTable = 'otel_traces'))
        WHERE _nth > 1 LIMIT 1)))), _renames, _runs
FROM (SELECT groupArray((key, trace, job, trial)) AS _renames FROM (
SELECT concat(Tenant, '/', Job, '/', Name) AS key, Name AS trace, _named.1 AS job, _named.2 AS trial FROM (
    SELECT Tenant, Job, Name, argMinMerge(Namer) AS _named
    FROM agent_names
    WHERE Name IN (SELECT TrialName FROM agent_events WHERE TrialName IN (SELECT TraceId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND TraceId != '' UNION ALL SELECT TrialName FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND TrialName IS NOT NULL UNION ALL SELECT SessionId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND SessionId IS NOT NULL) UNION ALL SELECT TraceId FROM agent_events WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND (Provenance['trial'] = 'inferred' AND TrialName != TraceId AND TrialName != ifNull(SessionId, '')))
    GROUP BY Tenant, Job, Name))) AS _named_by,
     (SELECT groupArray((key, cutoff)) AS _runs FROM (
SELECT key, if(arrayExists(s -> s > _last_end, _phases), _last_end,
               arrayMax(arrayMap(r -> r.2, arrayFilter(r -> r.1 < _latest, arrayPushBack(arrayFilter(r -> r.2 > 0, _roots), (0, 0)))))) AS cutoff
FROM (
    SELECT concat(Tenant, '/', assumeNotNull(JobName), '/', assumeNotNull(TrialName)) AS key,
           groupArrayIf((toUnixTimestamp64Nano(Timestamp), toUnixTimestamp64Nano(ifNull(EndTimestamp, Timestamp))),
                        Name = 'harbor.trial') AS _roots,
           groupArrayIf(toUnixTimestamp64Nano(Timestamp), Name != 'harbor.trial') AS _phases,
           arrayMax(arrayMap(r -> r.2, arrayPushBack(arrayFilter(r -> r.2 > 0, _roots), (0, 0)))) AS _last_end,
           arrayMax(arrayMap(r -> r.1, arrayPushBack(arrayFilter(r -> r.2 > 0, _roots), (0, 0)))) AS _latest
    FROM agent_events
    WHERE (Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))) AND SourceTable = 'otel_traces' AND Name IN ('harbor.trial', 'harbor.environment_setup', 'harbor.agent_setup', 'harbor.agent_execution', 'harbor.verifier')
      AND JobName IS NOT NULL AND TrialName IS NOT NULL
    GROUP BY Tenant, JobName, TrialName)
WHERE _last_end > 0 AND cutoff > 0)) AS _earlier
