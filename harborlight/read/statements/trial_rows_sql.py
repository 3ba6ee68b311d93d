"""The SQL that fetches trial rows: one aggregate row per trial, computed by ClickHouse.

Two statements, merged by trial name in harborlight/read/statements/load_trials.py:
- TRIAL_EVENTS: the resolved agent events (resolved_events: each call once, named after its trial, the
  latest run only) grouped by (job, trial): identity, token and cost totals, model and tool call counts,
  429s. It also decides which trials exist (every span and log event of a trial lands there, the harness's
  own spans included) and pages them in trial-name order.
- TRIAL_LIFECYCLE: the harness spans in otel_traces grouped by trial: the root and phase
  intervals, the verifier's rewards and report attributes, the exception events.
Nothing here loops over spans in Python: a job of thousands of trials is two GROUP BYs.
"""

from harborlight.agent import identity as agent_identity
from harborlight.agent.identity import LIFECYCLE_SPANS
from harborlight.read.statements.tenancy import AGENT_TENANT_FILTER, RAW_TENANT_FILTER
from harborlight.sql_text import RAW_TENANT, Sql, literals

# The job's planned trial count as the run record gave it (Harbor's JobResult.n_total_trials).
PLANNED_KEY = "harbor.job.n_total_trials"
REWARD_PREFIX = "harbor.reward."
REPORT_PREFIX = "harbor.verifier."  # harbor.verifier.resolved, .patch_applied, .f2p_pass, ... (see the field guide)
CATEGORY_KEY = "harbor.task.category"

# A job's trials, a page at a time ({jobs} empty: every job; {trial} and {trials} empty: every trial): on agent
# events as stored (_SCOPE: whose earlier runs TRIAL_RUNS finds), and resolved (_RESOLVED, by the key range).
_NAMES = """
      AND (empty({{jobs:Array(String)}}) OR JobName IN {{jobs:Array(String)}})
      AND ({{trial:String}} = '' OR {name} = {{trial:String}})
      AND (empty({{trials:Array(String)}}) OR {name} IN {{trials:Array(String)}})
      AND {name} > {{after:String}}"""
_SCOPE = Sql(
    f"{AGENT_TENANT_FILTER} AND JobName IS NOT NULL AND TrialName IS NOT NULL{_NAMES.format(name='TrialName')}"
)
_RESOLVED = f"{AGENT_TENANT_FILTER} AND JobName IS NOT NULL AND TrialName IS NOT NULL{_NAMES.format(name='TrialKey')}"
# The agent as its telemetry names it, a measured name before one inferred from the service; the model
# and the steps of the agent's own calls, not its side calls (agent_rules.CLAUDE_SIDE_QUERIES).
_AGGREGATES = """any(TaskName) AS task, min(Attempt) AS attempt,
        argMin(AgentName, Provenance['agent'] = 'inferred') AS agent, min(Provenance['agent'] = 'inferred') AS agent_inferred,
        argMin(AgentVersion, Provenance['agent_version'] = 'inferred') AS agent_version,
        min(Provenance['agent_version'] = 'inferred') AS version_inferred, anyIf(Model, SideCall IS NULL) AS model,
        sum(InputTokens) AS input_tokens, sum(CachedTokens) AS cache_tokens, sum(OutputTokens) AS output_tokens,
        sum(CostUsd) AS cost_usd,
        countIf(coalesce(HttpStatus, 200) < 400 AND SideCall IS NULL) AS n_ok, countIf(coalesce(ToolName, '') != '') AS n_named,
        countIf(HttpStatus IS NOT NULL) AS n_with_status, countIf(HttpStatus = 429) AS n_429,
        min(Timestamp) AS first_ts, max(coalesce(EndTimestamp, Timestamp)) AS last_ts"""
# The earlier runs of the trials (harborlight/agent/identity.py), which the lifecycle read leaves out.
TRIAL_RUNS = Sql(f"SELECT groupArray((key, cutoff)) FROM ({agent_identity.earlier_runs(_SCOPE).text})")


def _total(name: str) -> str:
    """A trial total of the model calls; a producer's own session aggregate when it sent no calls' counts."""
    return f"coalesce(sumIf({name}, Kind = 'llm_request'), sumIf({name}, Kind = 'session')) AS {name}"


_TOTALS = ",\n    ".join(_total(n) for n in ("input_tokens", "cache_tokens", "output_tokens", "cost_usd"))
TRIAL_EVENTS = f"""
SELECT
    JobName AS job,
    TrialName AS trial,
    any(task) AS task,
    min(attempt) AS attempt,
    argMin(agent, agent_inferred) AS agent,
    argMin(agent_version, version_inferred) AS agent_version,
    anyIf(model, Kind = 'llm_request') AS model,
    {_TOTALS},
    sumIf(n, Kind = 'llm_request') AS n_model_calls,
    sumIf(n_ok, Kind = 'llm_request') AS n_steps,
    sumIf(n_named, Kind = 'tool') AS n_tool_calls,
    sumIf(n_with_status, Kind = 'llm_request') AS n_with_status,
    sumIf(n_429, Kind = 'llm_request') AS n_rate_limited,
    toUnixTimestamp64Nano(min(first_ts)) AS first_seen,
    toUnixTimestamp64Nano(max(last_ts)) AS last_seen,
    sum(n) AS n_events
FROM (
    SELECT Tenant, JobName, TrialName, ServiceName, Kind, count() AS n, {_AGGREGATES}
    FROM resolved_events FINAL
    WHERE {_RESOLVED} AND NOT OuterTelling
    GROUP BY Tenant, JobName, TrialName, ServiceName, Kind)
GROUP BY job, trial
ORDER BY trial, job
LIMIT {{limit:UInt32}}
"""


def within_trials(trials: Sql, job: Sql) -> Sql:
    """A condition on otel_traces rows: within the primary-key range of the trials' raw spans, their services
    and first to last start, read from the trials' own agent_events (ordered by trial: a plain range read).
    otel_traces leads its ORDER BY with ServiceName, SpanName and the start, so a trial's lifecycle read
    reads the granules of its time, not every trial's lifecycle spans. `trials` and `job` are conditions
    on agent_events' TrialName and JobName. One scalar subquery, the same text each time so the engine
    evaluates it once."""
    bounds = (
        f"(SELECT (min(Timestamp), max(Timestamp), groupUniqArray(ServiceName)) FROM agent_events "
        f"WHERE {AGENT_TENANT_FILTER} AND {trials.text} AND {job.text} AND SourceTable = 'otel_traces')"
    )
    return Sql(
        f"has(tupleElement({bounds}, 3), ServiceName)"
        f" AND Timestamp >= tupleElement({bounds}, 1) AND Timestamp <= tupleElement({bounds}, 2)"
    )


_EXCEPTIONS = """arrayMap(i -> (toUnixTimestamp64Nano(`Events.Timestamp`[i]),
                          `Events.Attributes`[i]['exception.type'], `Events.Attributes`[i]['exception.message']),
                 arrayFilter(i -> `Events.Name`[i] = 'exception', arrayEnumerate(`Events.Name`)))"""

# The lifecycle of the given trials ({trials} empty: every trial of {jobs}), of each trial's latest run (the earlier
# runs TRIAL_RUNS found bound: harborlight/agent/identity.py), read within the named trials' key range (within_trials).
# Times are UNIX nanoseconds; a phase is the extent of its spans.
TRIAL_LIFECYCLE = Sql(f"""
SELECT
    ResourceAttributes['harbor.job.name'] AS job,
    ResourceAttributes['harbor.trial.name'] AS trial,
    anyIf(ResourceAttributes['harbor.task.source'], ResourceAttributes['harbor.task.source'] != '') AS source,
    anyIf(ResourceAttributes['harbor.agent.version'], ResourceAttributes['harbor.agent.version'] != '') AS agent_version,
    anyIf(ResourceAttributes['harbor.model.name'], ResourceAttributes['harbor.model.name'] != '') AS model,
    anyIf(ResourceAttributes['harbor.task.name'], ResourceAttributes['harbor.task.name'] != '') AS task,
    anyIf(ResourceAttributes['harbor.agent.name'], ResourceAttributes['harbor.agent.name'] != '') AS agent,
    anyIf(ResourceAttributes['harbor.attempt'], ResourceAttributes['harbor.attempt'] != '') AS attempt,
    anyIf(if(ResourceAttributes['{CATEGORY_KEY}'] != '', ResourceAttributes['{CATEGORY_KEY}'],
             SpanAttributes['{CATEGORY_KEY}']), ResourceAttributes['{CATEGORY_KEY}'] != ''
                                               OR SpanAttributes['{CATEGORY_KEY}'] != '') AS category,
    {
    ", ".join(
        f'''minIfOrNull(toUnixTimestamp64Nano(Timestamp), SpanName = '{name}') AS {name.split(".")[1]}_start,
    maxIfOrNull(toUnixTimestamp64Nano(Timestamp) + Duration, SpanName = '{name}') AS {name.split(".")[1]}_end'''
        for name in LIFECYCLE_SPANS
    )
},
    maxOrNull(toUInt32OrNull(if(SpanAttributes['{PLANNED_KEY}'] != '', SpanAttributes['{PLANNED_KEY}'],
                                ResourceAttributes['{PLANNED_KEY}']))) AS job_n_planned,
    argMaxIf(mapFilter((k, v) -> startsWith(k, '{REWARD_PREFIX}'), SpanAttributes), Timestamp,
             SpanName = 'harbor.verifier') AS rewards,
    argMaxIf(mapFilter((k, v) -> startsWith(k, '{REPORT_PREFIX}'), SpanAttributes), Timestamp,
             SpanName = 'harbor.verifier') AS report,
    arraySort(e -> e.1, groupArrayArray({_EXCEPTIONS})) AS exceptions
FROM otel_traces
WHERE {RAW_TENANT_FILTER}
  AND SpanName IN {literals(LIFECYCLE_SPANS)}
  AND (empty({{trials:Array(String)}}) OR ResourceAttributes['harbor.trial.name'] IN {{trials:Array(String)}})
  AND (empty({{trials:Array(String)}})
       OR {
    within_trials(
        Sql("TrialName IN {trials:Array(String)}"),
        Sql("(empty({jobs:Array(String)}) OR JobName IN {jobs:Array(String)})"),
    ).text
})
  AND (empty({{jobs:Array(String)}}) OR ResourceAttributes['harbor.job.name'] IN {{jobs:Array(String)}})
  AND {
    agent_identity.latest_run(
        Sql(RAW_TENANT),
        Sql("ResourceAttributes['harbor.job.name']"),
        Sql("ResourceAttributes['harbor.trial.name']"),
        Sql("Timestamp"),
    ).text
}
GROUP BY job, trial
""")
