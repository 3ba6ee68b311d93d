-- Written by `python -m harborlight.summaries.sql_files` (harborlight/summaries/resolve.py): edit the code.
INSERT INTO resolved_events
SELECT * REPLACE ({kinds:Array(String)}[indexOf({keys:Array(Tuple(String, String, String, String))}, (ifNull(JobName, ''), ifNull(TrialName, ''), TraceId, EventId))] AS Kind)
FROM (
    SELECT * FROM resolved_events FINAL
    WHERE Tenant = {tenant:String} AND (TrialKey IN {trials:Array(String)} OR ({nameless:Bool} AND TrialKey = ''))
  AND Version = {version:UInt64} AND EventId IN {events:Array(String)} AND (ifNull(JobName, ''), ifNull(TrialName, ''), TraceId, EventId) IN {keys:Array(Tuple(String, String, String, String))})
