-- Written by `python -m harborlight.summaries.sql_files` (harborlight/summaries/resolve.py): edit the code.
SELECT 
    EventId, TraceId, SpanId, ParentSpanId, SourceTable, Kind, KindRule, Resolve, Name, ServiceName,
    toUnixTimestamp64Nano(Timestamp) AS ts, toUnixTimestamp64Nano(EndTimestamp) AS end_ts, DurationNs, TimingQuality,
    JobName, TrialName, Attempt, TaskName, AgentName, Model, Provider,
    InputTokens, CachedTokens, CacheWriteTokens, OutputTokens, ReasoningTokens, CostUsd,
    HttpStatus, ErrorType, Success, ToolName, ToolCategory, ToolCallId, TargetPaths, Provenance, RequestId,
    AgentVersion, SideCall FROM resolved_events FINAL
WHERE Tenant = {tenant:String} AND (TrialKey IN {trials:Array(String)} OR ({nameless:Bool} AND TrialKey = ''))
  AND Version = {version:UInt64} AND TraceId IN {traces:Array(String)}
