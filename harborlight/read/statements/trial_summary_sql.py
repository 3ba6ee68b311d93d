"""The SQL of the stored trial rows (harborlight/store/sql/trial_rows.sql): which trial names changed since their
rows were derived, which trials those changes touch, and the stored rows read back.

A trial name is stale when more agent events have arrived under it (trial_arrivals) than when its rows
were derived (trial_summarized). A change under one name can move another trial: a record named after
its trace joins the trial its trace names (harborlight/agent/identity.py), and a record that names a trace
takes the trace's records from the trial that was named after it; sessions likewise. So the trials
derived again are the stale names, the trials their traces' and sessions' records join, and the names
those records went by (their traces' ids, their sessions, the processes named in their traces).
"""

from harborlight.agent.identity import NAMED_AFTER_PROCESS, renames
from harborlight.read.statements.tenancy import AGENT_TENANT_FILTER
from harborlight.sql_text import Sql
from harborlight.store.schema_ddl import RAW_TABLES

# (tenant, trial name, events arrived) of every name whose rows are older than its events ({tenant} '':
# every tenant's). Both tables hold a row per name once merged: this reads trials, never events.
STALE = f"""
SELECT a.Tenant, a.TrialKey, a.Arrived
FROM (SELECT Tenant, TrialKey, sum(Arrived) AS Arrived FROM trial_arrivals
      WHERE {AGENT_TENANT_FILTER} GROUP BY Tenant, TrialKey) AS a
LEFT JOIN (SELECT Tenant, TrialKey, argMax(Arrived, Version) AS Done FROM trial_summarized
           WHERE {AGENT_TENANT_FILTER} GROUP BY Tenant, TrialKey) AS s
    ON a.Tenant = s.Tenant AND a.TrialKey = s.TrialKey
WHERE a.Arrived != s.Done
ORDER BY a.Tenant, a.TrialKey
"""

_KEYS = Sql("Tenant = {tenant:String} AND TrialName IN {keys:Array(String)}")
# The records under the changed names and the names their traces and sessions go by: whose traces' names may change.
_CHANGED = (
    "Tenant = {tenant:String} AND TraceId != '' AND (TrialName IN {keys:Array(String)} "
    f"OR TrialName IN (SELECT trace FROM ({renames(_KEYS).text})))"
)
# The records named after their process in those traces go by their traces' names: their processes are moved too.
# Looked up by trace id within a day of the changed records (a trace's records are taken to be), which keeps the
# look-up to those days' parts.
_PROCESSES = f"""
SELECT DISTINCT assumeNotNull(TrialName) FROM agent_events
WHERE Tenant = {{tenant:String}} AND {NAMED_AFTER_PROCESS}
  AND TraceId IN (SELECT TraceId FROM agent_events WHERE {_CHANGED})
  AND Timestamp >= (SELECT min(Timestamp) - INTERVAL 1 DAY FROM agent_events WHERE {_CHANGED})
  AND Timestamp <= (SELECT max(Timestamp) + INTERVAL 1 DAY FROM agent_events WHERE {_CHANGED})"""
# The other trial names a change under {keys} may move (see the module): the traces' ids that records are stored
# under, the trials the records named after their traces or sessions join, the names those records went by, and
# the processes named in those traces. (A trace id no record is stored under names nothing to move: taken
# anyway, a harness's 20 trials of about 300 traces each made the resolution's scope 6,320 names, and its first
# statement 2.4-2.6 s against 0.76 s for the trials alone.)
TOUCHED = Sql(f"""
SELECT DISTINCT TraceId FROM agent_events WHERE {_KEYS.text} AND TraceId != ''
  AND TraceId IN (SELECT TrialKey FROM trial_arrivals WHERE Tenant = {{tenant:String}})
UNION DISTINCT
SELECT trial FROM ({renames(_KEYS).text}) WHERE trial IS NOT NULL
UNION DISTINCT
SELECT trace FROM ({renames(_KEYS).text})
UNION DISTINCT
{_PROCESSES}
""")

# The (job, trial) rows stored under the given names, whatever their job (to delete those that are gone).
STORED_NAMES = """
SELECT job, trial FROM trial_rows FINAL
WHERE Tenant = {tenant:String} AND trial IN {trials:Array(String)}
"""

# Stored rows of `jobs` (all when empty) named `trial` (any when ''), in trial-name order after `after`.
_READ_WHERE = f"""{AGENT_TENANT_FILTER}
  AND (empty({{jobs:Array(String)}}) OR job IN {{jobs:Array(String)}})
  AND ({{trial:String}} = '' OR trial = {{trial:String}})
  AND trial > {{after:String}}"""
FACTS = f"""
SELECT Facts, first_seen, last_seen, n_events FROM trial_rows FINAL
WHERE {_READ_WHERE}
ORDER BY trial, job
LIMIT {{limit:UInt32}}
"""
ROWS = f"""
SELECT Row FROM trial_rows FINAL
WHERE {_READ_WHERE}
ORDER BY trial, job
LIMIT {{limit:UInt32}}
"""

# (job, trial, outcome, reward) of the stored rows named `trials` (what a live watcher is told when they end).
VERDICTS = """
SELECT job, trial, outcome, reward FROM trial_rows FINAL
WHERE Tenant = {tenant:String} AND trial IN {trials:Array(String)}
"""

# A page of job names, in name order; and the jobs a trial name is in (a trial name should be unique).
JOB_NAMES = f"""
SELECT DISTINCT job FROM trial_rows FINAL
WHERE {AGENT_TENANT_FILTER} AND job > {{after:String}}
ORDER BY job
LIMIT {{limit:UInt32}}
"""
TRIAL_JOBS = f"""
SELECT DISTINCT job FROM trial_rows FINAL
WHERE {AGENT_TENANT_FILTER} AND trial = {{trial:String}}
ORDER BY job
LIMIT 100
"""

# A job's stored rows' generation: it changes whenever any of its trials' rows is derived again.
GENERATION = f"""
SELECT count(), max(Version) FROM trial_rows
WHERE {AGENT_TENANT_FILTER} AND job = {{job:String}}
"""

# One trial's answers' generation: the versions of its stored rows (one per job it is in), written at the version
# its events were resolved at, and the raw tables' row counts, which every commit changes (the parts' metadata
# answers them: no row is read).
_COMMITTED = ", ".join(f"(SELECT count() FROM {table})" for table in RAW_TABLES)
TRIAL_GENERATION = f"""
SELECT arraySort(groupArray((job, Version))), [{_COMMITTED}]
FROM trial_rows FINAL
WHERE {AGENT_TENANT_FILTER} AND trial = {{trial:String}}
"""
