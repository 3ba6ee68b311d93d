"""The keeper's rollup of the calls a resolution wrote (call_rollups: harborlight/store/sql/call_rollups.sql), which
the job-wide dashboard panels read (deploy/grafana/sql/job_models.sql, ...): the resolved trials' calls per
kind, model or tool category and minute, as those panels counted them over resolved_events, at the resolution's
{version}; then the rows an earlier resolution rolled up for those trials that this one did not are deleted.
Run after the tree pass (harborlight/summaries/tree_kinds.py): its kinds are the ones counted.
"""

from harborlight.read.statements.resolved_sql import RESOLVED_RANGE
from harborlight.sql_text import Sql

_KEY = "Tenant, JobKey, TrialKey, Kind, Label, Minute"

ROLL_UP = Sql(f"""
INSERT INTO call_rollups ({_KEY}, Calls, Failed, RateLimited, ServerErrors,
    InputTokens, CachedTokens, OutputTokens, CostUsd, Version, Deleted)
SELECT
    Tenant, JobKey, TrialKey, Kind,
    if(Kind = 'llm_request', coalesce(Model, 'unknown'), coalesce(ToolCategory, 'other')) AS Label,
    toStartOfMinute(Timestamp) AS Minute,
    count(), countIf(Success = false), countIf(HttpStatus = 429), countIf(HttpStatus >= 500),
    sum(InputTokens), sum(CachedTokens), sum(OutputTokens), sum(CostUsd), {{version:UInt64}}, 0
FROM resolved_events FINAL
WHERE {RESOLVED_RANGE}
  AND NOT OuterTelling AND (Kind = 'llm_request' OR (Kind = 'tool' AND coalesce(ToolName, '') != ''))
GROUP BY {_KEY}""")

ROLLED_GONE = Sql(f"""
INSERT INTO call_rollups ({_KEY}, Version, Deleted)
SELECT {_KEY}, {{version:UInt64}}, 1
FROM call_rollups FINAL
WHERE {RESOLVED_RANGE}
  AND Version < {{version:UInt64}}""")
