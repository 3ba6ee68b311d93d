"""The SQL of the keeper's tree pass (harborlight/summaries/tree_kinds.py): the kinds only a trace's tree tells
(harborlight/read/statements/trace_tree.py), written over the rows a resolution just wrote, so /api/spans, the
trial rows, the live feed and Grafana read the kinds the trace reads.

All three read the rows of the resolved trials' key ranges at the resolution's {version}: a row a newer
resolution replaced is left alone (its own pass writes its kinds).
"""

from harborlight.agent.twins import SPANS
from harborlight.read.statements.agent_events import COLUMNS
from harborlight.read.statements.resolved_sql import RESOLVED_RANGE

# The resolved trials' rows as the resolution wrote them.
_RESOLVED = f"{RESOLVED_RANGE}\n  AND Version = {{version:UInt64}}"

_DERIVED = "Provenance['kind'] = 'derived'"
# The EventId of the record a row hangs under (trace_tree `_parent_id`).
_PARENT = f"if(SourceTable = '{SPANS}' OR {_DERIVED}, ParentSpanId, SpanId)"

# The traces whose tree may change a kind, found without building it: a record the rules left to the tree
# (Resolve), a group under a tool (a sub-agent, when it reaches a model). Most traces have neither, and cost one
# aggregate here.
CHANGEABLE = f"""
SELECT TraceId FROM resolved_events FINAL
WHERE {_RESOLVED}
GROUP BY TraceId
HAVING countIf(Resolve != '') > 0
  OR hasAny(groupArrayIf(EventId, Kind = 'tool'), groupArrayIf({_PARENT}, Kind = 'group'))"""

# Those traces' rows, as the trace route reads them (harborlight/read/statements/agent_events.py from_row).
EVENTS = f"""
SELECT {COLUMNS} FROM resolved_events FINAL
WHERE {_RESOLVED} AND TraceId IN {{traces:Array(String)}}"""

# A row's place in its trace's tree (trace_tree.py `node_key`).
_PLACE = "(ifNull(JobName, ''), ifNull(TrialName, ''), TraceId, EventId)"
_KEYS = "{keys:Array(Tuple(String, String, String, String))}"

# The rows whose tree kind is not their stored one ({keys}: their places, {kinds}: the tree's), written again at
# the same version: of equal versions the row inserted last wins. (The Kind is replaced outside the subquery: a
# WHERE beside the REPLACE would read the replaced Kind.)
REKIND = f"""
INSERT INTO resolved_events
SELECT * REPLACE ({{kinds:Array(String)}}[indexOf({_KEYS}, {_PLACE})] AS Kind)
FROM (
    SELECT * FROM resolved_events FINAL
    WHERE {_RESOLVED} AND EventId IN {{events:Array(String)}} AND {_PLACE} IN {_KEYS})"""
