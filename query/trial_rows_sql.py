"""The SQL that fetches trial rows: one aggregate row per trial, computed by ClickHouse.

Two statements, merged by trial name in query/load_trials.py:
- TRIAL_EVENTS: agent_events grouped by (job, trial): identity, token and cost totals, model and
  tool call counts, 429s. It also decides which trials exist (every span and log event of a trial
  lands there, the harness's own spans included) and pages them in trial-name order.
- TRIAL_LIFECYCLE: the harness spans in otel_traces grouped by trial: the root and phase
  intervals, the verifier's rewards and report attributes, the exception events.
Nothing here loops over spans in Python: a job of thousands of trials is two GROUP BYs.
"""

from query.tenancy import AGENT_TENANT_FILTER, RAW_TENANT_FILTER

# The job's planned trial count as the run record gave it (Harbor's JobResult.n_total_trials).
PLANNED_KEY = "harbor.job.n_total_trials"
LIFECYCLE_SPANS = ("harbor.trial", "harbor.environment_setup", "harbor.agent_setup", "harbor.agent_execution",
                   "harbor.verifier")
REWARD_PREFIX = "harbor.reward."
REPORT_PREFIX = "harbor.verifier."  # harbor.verifier.resolved, .patch_applied, .f2p_pass, ... (see the field guide)
CATEGORY_KEY = "harbor.task.category"

# A job's trials, a page at a time ({jobs} empty: every job; {trial} empty: every trial).
TRIAL_EVENTS = f"""
SELECT
    JobName AS job,
    TrialName AS trial,
    any(TaskName) AS task,
    min(Attempt) AS attempt,
    any(AgentName) AS agent,
    anyIf(Model, Kind = 'llm_request') AS model,
    coalesce(sumIf(InputTokens, Kind = 'llm_request'), sumIf(InputTokens, Kind = 'session')) AS input_tokens,
    coalesce(sumIf(CachedTokens, Kind = 'llm_request'), sumIf(CachedTokens, Kind = 'session')) AS cache_tokens,
    coalesce(sumIf(OutputTokens, Kind = 'llm_request'), sumIf(OutputTokens, Kind = 'session')) AS output_tokens,
    coalesce(sumIf(CostUsd, Kind = 'llm_request'), sumIf(CostUsd, Kind = 'session')) AS cost_usd,
    countIf(Kind = 'llm_request') AS n_model_calls,
    countIf(Kind = 'llm_request' AND coalesce(HttpStatus, 200) < 400) AS n_steps,
    countIf(Kind = 'tool' AND coalesce(ToolName, '') != '') AS n_tool_calls,
    countIf(Kind = 'llm_request' AND HttpStatus IS NOT NULL) AS n_with_status,
    countIf(Kind = 'llm_request' AND HttpStatus = 429) AS n_rate_limited,
    toUnixTimestamp64Nano(min(Timestamp)) AS first_seen,
    toUnixTimestamp64Nano(max(coalesce(EndTimestamp, Timestamp))) AS last_seen,
    count() AS n_events
FROM agent_events
WHERE {AGENT_TENANT_FILTER}
  AND JobName IS NOT NULL AND TrialName IS NOT NULL
  AND (empty({{jobs:Array(String)}}) OR JobName IN {{jobs:Array(String)}})
  AND ({{trial:String}} = '' OR TrialName = {{trial:String}})
  AND TrialName > {{after:String}}
GROUP BY job, trial
ORDER BY trial, job
LIMIT {{limit:UInt32}}
"""

_EXCEPTIONS = """arrayMap(i -> (toUnixTimestamp64Nano(`Events.Timestamp`[i]),
                          `Events.Attributes`[i]['exception.type'], `Events.Attributes`[i]['exception.message']),
                 arrayFilter(i -> `Events.Name`[i] = 'exception', arrayEnumerate(`Events.Name`)))"""

# The lifecycle of the given trials ({trials} empty: every trial of {jobs}). Times are UNIX nanoseconds; a phase is the extent of its spans.
TRIAL_LIFECYCLE = f"""
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
    {", ".join(f'''minIfOrNull(toUnixTimestamp64Nano(Timestamp), SpanName = '{name}') AS {name.split(".")[1]}_start,
    maxIfOrNull(toUnixTimestamp64Nano(Timestamp) + Duration, SpanName = '{name}') AS {name.split(".")[1]}_end'''
               for name in LIFECYCLE_SPANS)},
    maxOrNull(toUInt32OrNull(if(SpanAttributes['{PLANNED_KEY}'] != '', SpanAttributes['{PLANNED_KEY}'],
                                ResourceAttributes['{PLANNED_KEY}']))) AS job_n_planned,
    argMaxIf(mapFilter((k, v) -> startsWith(k, '{REWARD_PREFIX}'), SpanAttributes), Timestamp,
             SpanName = 'harbor.verifier') AS rewards,
    argMaxIf(mapFilter((k, v) -> startsWith(k, '{REPORT_PREFIX}'), SpanAttributes), Timestamp,
             SpanName = 'harbor.verifier') AS report,
    arraySort(e -> e.1, groupArrayArray({_EXCEPTIONS})) AS exceptions
FROM otel_traces
WHERE {RAW_TENANT_FILTER}
  AND SpanName IN {LIFECYCLE_SPANS!r}
  AND (empty({{trials:Array(String)}}) OR ResourceAttributes['harbor.trial.name'] IN {{trials:Array(String)}})
  AND (empty({{jobs:Array(String)}}) OR ResourceAttributes['harbor.job.name'] IN {{jobs:Array(String)}})
GROUP BY job, trial
"""

# A page of job names, in name order.
JOB_NAMES = f"""
SELECT DISTINCT JobName AS job
FROM agent_events
WHERE {AGENT_TENANT_FILTER} AND JobName IS NOT NULL AND JobName > {{after:String}}
ORDER BY job
LIMIT {{limit:UInt32}}
"""

# The jobs a trial name belongs to (a trial name should be unique; if not, the caller picks the job).
TRIAL_JOBS = f"""
SELECT DISTINCT JobName
FROM agent_events
WHERE {AGENT_TENANT_FILTER} AND TrialName = {{trial:String}} AND JobName IS NOT NULL
ORDER BY JobName
LIMIT 100
"""
