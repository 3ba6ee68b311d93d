-- Written by `python -m harborlight.summaries.sql_files` (harborlight/summaries/resolve.py): edit the code.
INSERT INTO resolved_events (Tenant, TrialKey, JobKey, EventId, Timestamp, Version, Deleted)
SELECT Tenant, TrialKey, JobKey, EventId, Timestamp, {version:UInt64}, 1
FROM resolved_events FINAL
WHERE Tenant = {tenant:String} AND (TrialKey IN {trials:Array(String)} OR ({nameless:Bool} AND TrialKey = ''))
  AND Version < {version:UInt64}
