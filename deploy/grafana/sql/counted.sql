-- Shared by the panels that count calls: build.py pastes it where a panel says {{counted}} (the
-- events that count) or {{counted:expression}} (the events whose fact, the expression, counts). Claude Code, Gemini CLI and
-- Codex tell a call both as a span and as a log event; within one trial, service and kind the signal with
-- more rows counts, the spans on a tie (the API's rule, storage/agent_twins.py). A fact that only the other
-- signal carries (Claude Code's cost is on its events) counts from that signal instead. Panels that list
-- calls one by one do not use it: they read the API's rows, each call's facts filled from its twin
-- (build.py's calls placeholder, storage/agent_twins.py events).
(JobName, ifNull(TrialName, ''), ServiceName, Kind, SourceTable) IN (
    SELECT JobName, ifNull(TrialName, ''), ServiceName, Kind,
           multiIf(countIf(SourceTable = 'otel_logs') > countIf(SourceTable = 'otel_traces'),
                   if(countIf(SourceTable = 'otel_logs' AND {fact} IS NOT NULL) > 0
                      OR countIf({fact} IS NOT NULL) = 0, 'otel_logs', 'otel_traces'),
                   countIf(SourceTable = 'otel_traces' AND {fact} IS NOT NULL) > 0
                      OR countIf({fact} IS NOT NULL) = 0, 'otel_traces', 'otel_logs')
    FROM agent_events
    WHERE JobName IN (${job:sqlstring})
    GROUP BY JobName, TrialName, ServiceName, Kind)
