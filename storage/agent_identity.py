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

    Likewise a record named after an agent's session id takes the job and trial of the trial that
    claims that session: a record with a measured trial name that carries the session id (SessionId),
    the root span's first, then the earliest. So an agent that streamed under its session id (Harbor
    hands it no trial name) and the trial's job directory imported later, whose ATIF trajectory
    names the session, are one trial; a record named after a trace that is named after such a session
    goes on to that trial. Sessions never cross tenants either.

`renames(scope)` is the SQL of the names the scope's traces give (one row per trace whose records
named after it take another name); `named(scope, bound)` the SQL of the agent_events rows (same
columns) whose resolved identity may match `scope`, each with its resolved JobName and TrialName. The
renames are read there by their own statement (SQL that must stand alone, such as Grafana's), or
(bound) are parameters that a reader who asked `renames` first binds (`parameters`): planned in a
fraction of the time, as the statement is repeated inside the twin rule. The reader filters the rows
with `scope` (and anything else) outside. `scope` is a condition on identity only (JobName,
TrialName, TraceId, Tenant, parameters): it finds the trial's traces whatever kind of record carries
the name. Its rows are read by the table's sort key: a trial's own range, and its traces' ids.
"""

# Among a trace's named records, the one that names it sorts first.
_NAMING_ORDER = ("(Provenance['trial'] != 'measured', NOT (SourceTable = 'otel_traces' AND ParentSpanId = ''), "
                 "Timestamp, EventId)")


# The names a record may give records named after them: its trace's id, and the session it carries when its
# own trial name is measured (its claim: Harbor's imported trajectory naming the agent's session).
_CLAIMS = ("if(Provenance['trial'] = 'measured' AND SessionId IS NOT NULL AND SessionId != TrialName, "
           "[TraceId, assumeNotNull(SessionId)], [TraceId])")


def _key(tenant: str, trace: str) -> str:
    """A trace or session as the names know it: its tenant's, never another's."""
    return f"concat({tenant}, '/', {trace})"


def renames(scope: str) -> str:
    """(key, name, job, trial) of each trace or session of the scope that names the records named after it
    otherwise: the names records of the scope go by, bear (their traces) or claim (their sessions). One read
    by the sort key and the trace id and session id indexes: a few ms, no rows when nothing is renamed."""
    names = (f"SELECT TrialName FROM agent_events WHERE TrialName IN ("
             f"SELECT TraceId FROM agent_events WHERE ({scope}) AND TraceId != '' UNION ALL "
             f"SELECT TrialName FROM agent_events WHERE ({scope}) AND TrialName IS NOT NULL UNION ALL "
             f"SELECT SessionId FROM agent_events WHERE ({scope}) AND SessionId IS NOT NULL)")
    return f"""
SELECT {_key('Tenant', 'name')} AS key, name AS trace, _named.1 AS job, _named.2 AS trial FROM (
    SELECT Tenant, name, argMin((JobName, TrialName), {_NAMING_ORDER}) AS _named
    FROM agent_events ARRAY JOIN {_CLAIMS} AS name
    WHERE (TraceId IN ({names}) OR SessionId IN ({names})) AND name IN ({names}) AND TrialName != name
    GROUP BY Tenant, name)"""


# The renames as parameters, bound by `parameters`: (keys, trace ids, jobs, trials).
_BOUND = ("({_names_keys:Array(String)}, {_names_traces:Array(String)}, {_names_jobs:Array(Nullable(String))}, "
          "{_names_trials:Array(Nullable(String))})")


def parameters(rows: list[tuple]) -> dict[str, list]:
    """The parameters `named(scope, bound=True)` binds, from the rows (key, trace, job, trial) of `renames(scope)`."""
    columns = list(zip(*rows)) or [(), (), (), ()]
    return {f"_names_{name}": list(values) for name, values in zip(("keys", "traces", "jobs", "trials"), columns)}


def named(scope: str, bound: bool = False) -> str:
    """agent_events rows that `scope` may select once named after their trials (see the module). The
    renames are read by their own statement inside, or (bound) are `parameters` the reader binds."""
    if bound:
        names, traces = _BOUND, "{_names_traces:Array(String)}"
    else:
        names = ("(SELECT (arrayMap(r -> r.1, _r), arrayMap(r -> r.2, _r), arrayMap(r -> r.3, _r), arrayMap(r -> r.4, _r))"
                 f" FROM (SELECT groupArray((key, trace, job, trial)) AS _r FROM ({renames(scope)})))")
        traces = f"(SELECT trace FROM ({renames(scope)}))"
    # A name that is renamed to a name renamed again (a trace named after a claimed session) goes on to the last.
    first = f"indexOf(_n.1, {_key('Tenant', "ifNull(TrialName, '')")})"
    then = f"indexOf(_n.1, {_key('Tenant', "ifNull(_n.4[_at1], '')")})"
    return f"""
SELECT * EXCEPT (_n, _at1, _at) REPLACE (
    if(_at = 0, JobName, _n.3[_at]) AS JobName, if(_at = 0, TrialName, _n.4[_at]) AS TrialName)
FROM (
    SELECT *, if(_at1 = 0, 0, if({then} = 0, _at1, {then})) AS _at
    FROM (SELECT *, {names} AS _n, {first} AS _at1 FROM agent_events
          WHERE ({scope}) OR TrialName IN {traces}))"""
