-- Written by `python -m harborlight.summaries.sql_files` (harborlight/summaries/resolve.py): edit the code.
SELECT TraceId FROM resolved_events FINAL
WHERE Tenant = {tenant:String} AND (TrialKey IN {trials:Array(String)} OR ({nameless:Bool} AND TrialKey = ''))
  AND Version = {version:UInt64}
GROUP BY TraceId
HAVING countIf(Resolve != '') > 0
  OR hasAny(groupArrayIf(EventId, Kind = 'tool'), groupArrayIf(if(SourceTable = 'otel_traces' OR Provenance['kind'] = 'derived', ParentSpanId, SpanId), Kind = 'group'))
