"""The SQL that resolves a set of trials' agent events once, into resolved_events (harborlight/store/sql/
resolved_events.sql), the rows every reader selects.

Resolving is the read-time rule applied once, when a trial's events change: the records named after their
trials (harborlight/agent/identity.py), the earlier runs of a retried trial left out, each call once with its
facts filled from its twin, and the outer telling of a call told at two levels kept as a group of its trace
only (harborlight/agent/twins.py). The keeper (harborlight/summaries/resolve.py) asks FORM for the renames and
earlier runs to bind, then runs `resolve()`'s statement and GONE with one version: the rows it writes replace
the ones before, and a record no longer of these trials (renamed into another, an earlier run, a dropped twin's
derived record) is deleted under the name it had.
"""

from harborlight.agent import twins as agent_twins
from harborlight.agent.identity import TRIAL_OF_UNRENAMED
from harborlight.sql_text import Sql

# The columns resolved_events adds to agent_events'.
EXTRA_COLUMNS = ("TrialKey", "JobKey", "TwinId", "OuterTelling", "Version", "Deleted")

# The stored names a change touched ({trials}: trial names, and trace ids the records of no trial go by;
# {nameless}: the records with neither, stored under no name).
_STORED = Sql(
    "Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR ({nameless:Bool} AND TrialName IS NULL))"
)
# The same records once named: those of the trials, and those of no trial whose trace is among the names.
_RESOLVED = Sql(
    "Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)}"
    " OR (TrialName IS NULL AND (TraceId IN {trials:Array(String)} OR ({nameless:Bool} AND TraceId = ''))))"
)
# The form the stored names' rows are resolved in, and the renames and earlier runs it binds (agent_twins.bind),
# asked first: most trials need neither renames nor twins, and the plain form plans in a fraction of the time.
FORM = agent_twins.form(_STORED, scope=_STORED)

# One trial's rows, by its key range (a record of no trial goes by its trace id, and is not the trial's).
ONE_TRIAL = "TrialKey = {trial:String} AND TrialName = {trial:String}"


def resolve(columns: list[str], form: int) -> Sql:
    """INSERT of the resolved rows of {trials} at {version}, in the `form` FORM found: `columns` are
    agent_events' (as resolved_events names them)."""
    # a span only of the agent's process that no name reached is of no trial, in every form (as identity names it)
    names = ", ".join(columns).replace("TrialName", f"{TRIAL_OF_UNRENAMED} AS TrialName")
    counted = agent_twins.events(_RESOLVED, form, twin_ids=True, scope=_STORED)
    outer = agent_twins.outer_tellings(_RESOLVED, form, scope=_STORED)
    rows = f"SELECT {names}, _twin_id AS TwinId, false AS OuterTelling FROM ({counted.text})"
    if form & agent_twins.TWINS:
        rows += f"\nUNION ALL\nSELECT {names}, '', true FROM ({outer.text})"
    keys = "coalesce(TrialName, TraceId), ifNull(JobName, '')"
    return Sql(f"""
INSERT INTO resolved_events ({", ".join(columns)}, {", ".join(EXTRA_COLUMNS)})
SELECT {", ".join(columns)}, {keys}, TwinId, OuterTelling, {{version:UInt64}}, 0 FROM (
{rows})""")


# The key ranges a resolution of {trials} writes ({nameless}: and the records of no name, under '').
RESOLVED_RANGE = (
    "Tenant = {tenant:String} AND (TrialKey IN {trials:Array(String)} OR ({nameless:Bool} AND TrialKey = ''))"
)

# The rows of {trials} an earlier resolution wrote that this one ({version}) did not: deleted.
GONE = Sql(f"""
INSERT INTO resolved_events (Tenant, TrialKey, JobKey, EventId, Timestamp, Version, Deleted)
SELECT Tenant, TrialKey, JobKey, EventId, Timestamp, {{version:UInt64}}, 1
FROM resolved_events FINAL
WHERE {RESOLVED_RANGE}
  AND Version < {{version:UInt64}}""")
