"""Trial identity across a trace: the one rule that names each agent event's trial, applied by the keeper when a
trial's records change (harborlight/read/statements/resolved_sql.py); every reader selects the rows it resolved.

The agent views name each record's trial from the record alone (harborlight/agent/rules.py FACTS
"trial"); a record with no trial name or session of its own is named after its process (service.name and
service.instance.id: one run of an app outside a harness, whose model calls are a trace each, is one trial),
and one with no process either (or a step of no agent, kind group) after its trace id. Which trial such a
record belongs to is only known once its trace's other records are there (Harbor's ATIF converter
puts `session.id` on the root span of a trial's trace only; an agent may export the root, which
carries the session, last), so it is resolved once they are there:

    A record named after its trace or its process takes the job and trial of its trace: those of the
    trace's record named by the strongest identity (a measured one, such as harbor.trial.name, then a
    session, then a process), the root span's first, then the earliest. A trace with no named
    record keeps its id as the trial's name, except for the spans that are only steps of the
    agent's process (kind `group`): named by nothing, they are of no trial (Codex's process-level
    roots, auth, fs.read_file, initialize, ..., are a trace each, and a run under Harbor without its
    trial's name would otherwise show a trial for each). Traces never cross tenants.

    Likewise a record named after an agent's session id takes the job and trial of the trial that
    claims that session: a record with a measured trial name that carries the session id (SessionId),
    the root span's first, then the earliest. So an agent that streamed under its session id (Harbor
    hands it no trial name) and the trial's job directory imported later, whose ATIF trajectory
    names the session, are one trial; a record named after a trace that is named after such a session
    goes on to that trial. Sessions never cross tenants either, and a record that names its job never
    moves to another job's trial (one job directory imported and also exported by Harbor under another
    experiment name is two whole jobs).

A trial Harbor ran again (its retries: the same trial name, a new run from the start; the job directory
keeps the last run only) reads as its latest run, since a retry is no observation of its own:

    A record of a trial that started before the trial's previous run ended is that earlier run's and
    not the trial's. Runs are told apart by their `harbor.trial` roots: the previous run is the last
    one whose root ended before the latest run began, the latest run being the one whose lifecycle
    spans start after every root ended (a run under way) or else the root that started last. Only
    trials with an earlier run are touched (`earlier_runs`), and the rule holds for every record named
    after the trial, the agent's own telemetry of the earlier run included, and for the lifecycle spans
    read from otel_traces (`latest_run`).

`renames(scope)` is the SQL of the names the scope's traces give (one row per trace whose records
named after it take another name); `named(scope, bound)` the SQL of the agent_events rows (same
columns) whose resolved identity may match `scope`, each with its resolved JobName and TrialName. The
renames are read there by their own statement (SQL that must stand alone, such as Grafana's), or
(bound) are parameters that a reader who asked `renames` first binds (`parameters`): planned in a
fraction of the time, as the statement is repeated inside the twin rule. The reader filters the rows
with `scope` (and anything else) outside. `scope` is a fragment (harborlight/sql_text.py `Sql`: its parameters go
with it into every statement made of it), a condition on identity only (JobName,
TrialName, TraceId, Tenant, parameters): it finds the trial's traces whatever kind of record carries
the name. Its rows are read by the table's sort key: a trial's own range, and its traces' ids.
"""

from collections.abc import Sequence

from harborlight.sql_text import Sql, literals

# A record named after its process (rules.py FACTS "trial": no trial name or session of its own): its trial is
# inferred, and neither its trace's id nor its session.
NAMED_AFTER_PROCESS = (
    "(Provenance['trial'] = 'inferred' AND TrialName != TraceId AND TrialName != ifNull(SessionId, ''))"
)

# Among a trace's named records, the one that names it sorts first: a measured name, then a session, then a
# process (0, 1, 2: one UInt8, as the names table's state has it), the root span's, then the earliest.
_NAMING_ORDER = (
    "(multiIf(Provenance['trial'] = 'measured', 0, TrialName = SessionId, 1, 2), "
    "NOT (SourceTable = 'otel_traces' AND ParentSpanId = ''), Timestamp, EventId)"
)


# The names a record may give records named after them: its trace's id, and the session it carries when its
# own trial name is measured (its claim: Harbor's imported trajectory naming the agent's session).
_CLAIMS = (
    "if(Provenance['trial'] = 'measured' AND SessionId IS NOT NULL AND SessionId != TrialName, "
    "[TraceId, assumeNotNull(SessionId)], [TraceId])"
)


def _key(tenant: str, job: str, name: str) -> str:
    """A trace, session or trial as the names know it: its tenant's and job's ('' for records that name no
    job), never another's."""
    return f"concat({tenant}, '/', {job}, '/', {name})"


# The names table (harborlight/store/sql/agent_names.sql), fed as agent events arrive by NAMES_VIEW: per name a record
# may give (its claims), in its job and in none, the namer of the name's records so far, kept as the naming
# order's first (an argMin state). Names are looked up by their key range, not by checking every agent_events
# granule's trace and session indexes (which grew with the store: issue 18).
_NAMES_SELECT = f"""SELECT Tenant, name AS Name, _job AS Job, argMinState((JobName, TrialName), {_NAMING_ORDER}) AS Namer
FROM agent_events ARRAY JOIN {_CLAIMS} AS name ARRAY JOIN arrayDistinct([ifNull(JobName, ''), '']) AS _job
WHERE TrialName != name
GROUP BY Tenant, Name, Job"""
# Written to harborlight/store/sql/agent_names_mv.sql by harborlight/agent/compile.py; the store fills the names of
# stored events by this statement's SELECT (harborlight/store/schema_ddl.py NAMES_FILL).
NAMES_VIEW = f"CREATE MATERIALIZED VIEW IF NOT EXISTS agent_names_mv TO agent_names AS\n{_NAMES_SELECT}"


def renames(scope: Sql) -> Sql:
    """(key, name, job, trial) of each trace or session of the scope that names the records named after it
    otherwise, keyed in the namer's job and (for records that name no job) in none: the names records of the
    scope go by, bear (their traces) or claim (their sessions). The names by the agent_events sort key, their
    namers by the names table's: a few ms, no rows when nothing is renamed."""
    names = (
        f"SELECT TrialName FROM agent_events WHERE TrialName IN ("
        f"SELECT TraceId FROM agent_events WHERE ({scope.text}) AND TraceId != '' UNION ALL "
        f"SELECT TrialName FROM agent_events WHERE ({scope.text}) AND TrialName IS NOT NULL UNION ALL "
        f"SELECT SessionId FROM agent_events WHERE ({scope.text}) AND SessionId IS NOT NULL) UNION ALL "
        # the traces of the records named after their process, which look their trace up (`named`)
        f"SELECT TraceId FROM agent_events WHERE ({scope.text}) AND {NAMED_AFTER_PROCESS}"
    )
    return Sql(f"""
SELECT {_key("Tenant", "Job", "Name")} AS key, Name AS trace, _named.1 AS job, _named.2 AS trial FROM (
    SELECT Tenant, Job, Name, argMinMerge(Namer) AS _named
    FROM agent_names
    WHERE Name IN ({names})
    GROUP BY Tenant, Job, Name)""")


# The harness's lifecycle spans (harborlight/harbor/harness/lifecycle.py): the trial's root and its phases, by which its runs are told apart.
LIFECYCLE_SPANS = (
    "harbor.trial",
    "harbor.environment_setup",
    "harbor.agent_setup",
    "harbor.agent_execution",
    "harbor.verifier",
)


def earlier_runs(scope: Sql) -> Sql:
    """(key, cutoff) of each trial of the scope that Harbor ran more than once: its records that start at
    or before `cutoff` (UNIX ns: the end of its previous run) are an earlier run's (see the module). One
    read of the scope's lifecycle spans; no rows for a trial run once."""
    roots = "arrayFilter(r -> r.2 > 0, _roots)"
    return Sql(f"""
SELECT key, if(arrayExists(s -> s > _last_end, _phases), _last_end,
               arrayMax(arrayMap(r -> r.2, arrayFilter(r -> r.1 < _latest, arrayPushBack({roots}, (0, 0)))))) AS cutoff
FROM (
    SELECT {_key("Tenant", "assumeNotNull(JobName)", "assumeNotNull(TrialName)")} AS key,
           groupArrayIf((toUnixTimestamp64Nano(Timestamp), toUnixTimestamp64Nano(ifNull(EndTimestamp, Timestamp))),
                        Name = 'harbor.trial') AS _roots,
           groupArrayIf(toUnixTimestamp64Nano(Timestamp), Name != 'harbor.trial') AS _phases,
           arrayMax(arrayMap(r -> r.2, arrayPushBack({roots}, (0, 0)))) AS _last_end,
           arrayMax(arrayMap(r -> r.1, arrayPushBack({roots}, (0, 0)))) AS _latest
    FROM agent_events
    WHERE ({scope.text}) AND SourceTable = 'otel_traces' AND Name IN {literals(LIFECYCLE_SPANS)}
      AND JobName IS NOT NULL AND TrialName IS NOT NULL
    GROUP BY Tenant, JobName, TrialName)
WHERE _last_end > 0 AND cutoff > 0""")


# The earlier runs as parameters, bound by `parameters`: (keys, cutoffs).
RUN_PARAMETERS = ("_runs_keys", "_runs_cutoffs")
_RUNS_BOUND = (f"{{{RUN_PARAMETERS[0]}:Array(String)}}", f"{{{RUN_PARAMETERS[1]}:Array(Int64)}}")


def latest_run(tenant: Sql, job: Sql, trial: Sql, timestamp: Sql, scope: Sql | None = None) -> Sql:
    """A condition on a record (its tenant, job and trial names and start, SQL over its columns): it is
    of its trial's latest run (see the module). Without `scope` the `earlier_runs` a reader asked first are
    the bound `parameters`; else they are read inside, from `scope`."""
    if scope is None:
        keys, cutoffs = _RUNS_BOUND
    else:
        runs = f"(SELECT (groupArray(key), groupArray(cutoff)) FROM ({earlier_runs(scope).text}))"
        keys, cutoffs = f"{runs}.1", f"{runs}.2"
    job_name, trial_name = f"ifNull({job.text}, '')", f"ifNull({trial.text}, '')"
    at = f"indexOf({keys}, {_key(tenant.text, job_name, trial_name)})"
    return Sql(f"({at} = 0 OR toUnixTimestamp64Nano({timestamp.text}) > arrayElement({cutoffs}, {at}))")


# The renames as parameters, bound by `parameters`: (keys, trace ids, jobs, trials).
_BOUND = (
    "({_names_keys:Array(String)}, {_names_traces:Array(String)}, {_names_jobs:Array(Nullable(String))}, "
    "{_names_trials:Array(Nullable(String))})"
)


def parameters(rows: Sequence[Sequence[object]], runs: Sequence[Sequence[object]] = ()) -> dict[str, list[object]]:
    """The parameters `named(scope, bound=True)` binds, from the rows (key, trace, job, trial) of `renames(scope)`
    and the rows (key, cutoff) of `earlier_runs(scope)`."""
    columns = list(zip(*rows, strict=True)) or [(), (), (), ()]
    names = {
        f"_names_{name}": list(values)
        for name, values in zip(("keys", "traces", "jobs", "trials"), columns, strict=True)
    }
    return {**names, **run_parameters(runs)}


def run_parameters(runs: Sequence[Sequence[object]]) -> dict[str, list[object]]:
    """The parameters `latest_run(..., bound=True)` binds, from the rows (key, cutoff) of `earlier_runs`."""
    keys, cutoffs = (list(column) for column in zip(*runs, strict=True)) if runs else ([], [])
    return dict(zip(RUN_PARAMETERS, (keys, cutoffs), strict=True))


# A record no name reached that is only a step of the agent's process (Codex's process-level roots: auth,
# fs.read_file, initialize, ... under no session) shows no trial: its trace names none, and it is of none.
# (A log event of kind group is a step of a model call it was logged in, such as GenAI 1.30's gen_ai.choice that
# only requests tools: of its trace's trial.)
TRIAL_OF_UNRENAMED = "if(Kind = 'group' AND SourceTable = 'otel_traces' AND TrialName = TraceId, NULL, TrialName)"


def named(scope: Sql, bound: bool = False) -> Sql:
    """agent_events rows that `scope` may select once named after their trials (see the module). The
    renames are read by their own statement inside, or (bound) are `parameters` the reader binds."""
    if bound:
        names, traces = _BOUND, "{_names_traces:Array(String)}"
    else:
        names = (
            "(SELECT (arrayMap(r -> r.1, _r), arrayMap(r -> r.2, _r), arrayMap(r -> r.3, _r), arrayMap(r -> r.4, _r))"
            f" FROM (SELECT groupArray((key, trace, job, trial)) AS _r FROM ({renames(scope).text})))"
        )
        traces = f"(SELECT trace FROM ({renames(scope).text}))"
    # A name that is renamed to a name renamed again (a trace named after a claimed session) goes on to the last.
    # A record that names its job looks its name up in that job only; one that names none, in every job. One
    # named after its process looks up its trace: the trace's name is its process's or a stronger one.
    own = f"if({NAMED_AFTER_PROCESS}, TraceId, ifNull(TrialName, ''))"
    first = f"indexOf(_n.1, {_key('Tenant', "ifNull(JobName, '')", own)})"
    then = f"indexOf(_n.1, {_key('Tenant', "ifNull(_n.3[_at1], '')", "ifNull(_n.4[_at1], '')")})"
    # Named first, then an earlier run's records left out: the agent's own records of it go by its trial's name.
    columns = (Sql("Tenant"), Sql("JobName"), Sql("TrialName"), Sql("Timestamp"))
    return Sql(f"""
SELECT * FROM (
SELECT * EXCEPT (_n, _at1, _at) REPLACE (
    if(_at = 0, JobName, _n.3[_at]) AS JobName, if(_at = 0, {TRIAL_OF_UNRENAMED}, _n.4[_at]) AS TrialName)
FROM (
    SELECT *, if(_at1 = 0, 0, if({then} = 0, _at1, {then})) AS _at
    FROM (SELECT *, {names} AS _n, {first} AS _at1 FROM agent_events
          WHERE ({scope.text}) OR TrialName IN {traces})))
WHERE {latest_run(*columns, None if bound else scope).text}""")
