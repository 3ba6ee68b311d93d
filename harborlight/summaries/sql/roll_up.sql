-- Written by `python -m harborlight.summaries.sql_files` (harborlight/summaries/resolve.py): edit the code.
INSERT INTO call_rollups (Tenant, JobKey, TrialKey, Kind, Label, Minute, Calls, Failed, RateLimited, ServerErrors,
    InputTokens, CachedTokens, OutputTokens, CostUsd, Version, Deleted)
SELECT
    Tenant, JobKey, TrialKey, Kind,
    if(Kind = 'llm_request', coalesce(Model, 'unknown'), coalesce(ToolCategory, 'other')) AS Label,
    toStartOfMinute(Timestamp) AS Minute,
    count(), countIf(Success = false), countIf(HttpStatus = 429), countIf(HttpStatus >= 500),
    sum(InputTokens), sum(CachedTokens), sum(OutputTokens), sum(CostUsd), {version:UInt64}, 0
FROM resolved_events FINAL
WHERE Tenant = {tenant:String} AND (TrialKey IN {trials:Array(String)} OR ({nameless:Bool} AND TrialKey = ''))
  AND NOT OuterTelling AND (Kind = 'llm_request' OR (Kind = 'tool' AND coalesce(ToolName, '') != ''))
GROUP BY Tenant, JobKey, TrialKey, Kind, Label, Minute
