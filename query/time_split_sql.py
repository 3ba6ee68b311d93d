"""The SQL that fetches the clocks of a job's (or one trial's) model calls and tool calls.

Records are named after their trials (storage/agent_identity.py); a call told both by a span and by a
log event is read once (storage/agent_twins.py); tool events without a tool name (empty placeholders)
are not calls, as in the trial rows. TIMED_CALLS has a form for rows without such twins (asked first:
TWINS) and one for rows with them.
"""

from query.tenancy import AGENT_TENANT_FILTER
from storage import agent_twins

# The identity part (storage/agent_identity.py: records named after their trace take its trial), then the kinds.
_SCOPE = f"""{AGENT_TENANT_FILTER}
      AND JobName = {{job:String}} AND ({{trial:String}} = '' OR TrialName = {{trial:String}})"""
_CALLS = f"{_SCOPE} AND Kind IN ('llm_request', 'tool')"

TIMED_CALLS = {twins: f"""
SELECT TrialName, Kind, Model, toUnixTimestamp64Nano(Timestamp) AS ts, toUnixTimestamp64Nano(EndTimestamp) AS end_ts,
       TimingQuality
FROM ({agent_twins.events(_CALLS, twins, derived=False, scope=_SCOPE)})
WHERE Kind = 'llm_request' OR coalesce(ToolName, '') != ''
ORDER BY TrialName, Timestamp, EventId
""" for twins in (False, True)}
TWINS = agent_twins.present(_CALLS, scope=_SCOPE)
