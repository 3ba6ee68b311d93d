-- Written by `python -m harborlight.summaries.sql_files` (harborlight/summaries/resolve.py): edit the code.
INSERT INTO call_rollups (Tenant, JobKey, TrialKey, Kind, Label, Minute, Version, Deleted)
SELECT Tenant, JobKey, TrialKey, Kind, Label, Minute, {version:UInt64}, 1
FROM call_rollups FINAL
WHERE Tenant = {tenant:String} AND (TrialKey IN {trials:Array(String)} OR ({nameless:Bool} AND TrialKey = ''))
  AND Version < {version:UInt64}
