CREATE MATERIALIZED VIEW IF NOT EXISTS agent_names_mv TO agent_names AS
SELECT Tenant, name AS Name, _job AS Job, argMinState((JobName, TrialName), (multiIf(Provenance['trial'] = 'measured', 0, TrialName = SessionId, 1, 2), NOT (SourceTable = 'otel_traces' AND ParentSpanId = ''), Timestamp, EventId)) AS Namer
FROM agent_events ARRAY JOIN if(Provenance['trial'] = 'measured' AND SessionId IS NOT NULL AND SessionId != TrialName, [TraceId, assumeNotNull(SessionId)], [TraceId]) AS name ARRAY JOIN arrayDistinct([ifNull(JobName, ''), '']) AS _job
WHERE TrialName != name
GROUP BY Tenant, Name, Job