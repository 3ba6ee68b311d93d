"""Trial identity across a trace: the one rule every reader of agent_events applies when it reads.

The agent views name each record's trial from the record alone (storage/agent_rules.py FACTS
"trial"); a record with no identity of its own is named after its trace id. Which trial such a
record belongs to is only known once its trace's other records are there (Harbor's ATIF converter
puts `session.id` on the root span of a trial's trace only; an agent may export the root, which
carries the session, last), so it is resolved when read:

    A record named after its trace takes the job and trial of its trace: those of the trace's record
    named by the strongest identity (a measured one, such as harbor.trial.name, before an inferred
    one such as session.id), the root span's first, then the earliest. A trace with no named
    record keeps its id as the trial's name. Traces never cross tenants.

`named(scope)` is the SQL of the agent_events rows (same columns) whose resolved identity may match
`scope`, each with its resolved JobName and TrialName; the reader filters them with `scope` (and
anything else) outside. `scope` is a condition on identity only (JobName, TrialName, TraceId, Tenant,
parameters): it finds the trial's traces whatever kind of record carries the name. Its rows are read
by the table's sort key: a trial's own range, and the ranges of its traces' ids.
"""

# Among a trace's named records, the one that names it sorts first.
_NAMING_ORDER = ("(Provenance['trial'] != 'measured', NOT (SourceTable = 'otel_traces' AND ParentSpanId = ''), "
                 "Timestamp, EventId)")


def _traces(scope: str) -> str:
    return f"SELECT TraceId FROM agent_events WHERE ({scope}) AND TraceId != ''"


def named(scope: str) -> str:
    """agent_events rows that `scope` may select once named after their trials (see the module)."""
    traces = _traces(scope)
    return f"""
SELECT * EXCEPT (_trace, _tenant, _named) REPLACE (
    if(_trace = '', JobName, _named.1) AS JobName, if(_trace = '', TrialName, _named.2) AS TrialName)
FROM (SELECT * FROM agent_events WHERE ({scope}) OR TrialName IN ({traces})) AS _e
LEFT ANY JOIN (
    SELECT TraceId AS _trace, Tenant AS _tenant, argMin((JobName, TrialName), {_NAMING_ORDER}) AS _named
    FROM agent_events
    WHERE TraceId IN (SELECT TrialName FROM agent_events WHERE TrialName IN ({traces}))
      AND TrialName != TraceId
    GROUP BY TraceId, Tenant
) AS _n ON _e.TrialName = _n._trace AND _e.Tenant = _n._tenant"""
