"""Typed input rows for the derivations: one trial's facts, its tool calls and its model calls.

These are filled from the store (ClickHouse rows) by the query layer; the derivations never see a
database. Times are UNIX seconds as floats. Any field may be None when the telemetry did not carry
it, and None always means "not recorded", never zero.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class ToolCategory(StrEnum):
    """What a tool call does, matched from its name (the agent layer assigns it)."""

    PLAN = "plan"
    SEARCH = "search"
    READ = "read"
    EDIT = "edit"
    EXECUTE = "execute"
    OTHER = "other"


@dataclass(frozen=True, slots=True)
class Interval:
    """One harness phase span (`harbor.environment_setup` and friends)."""

    start: float | None  # span start, UNIX seconds; None if the span never started
    end: float | None  # span end, UNIX seconds; None while the phase is still open


@dataclass(frozen=True, slots=True)
class VerifierReport:
    """A benchmark's own grading report (SWE-bench-style `report.json`), when one was recorded."""

    resolved: bool | None = None  # the report's own verdict
    patch_exists: bool | None = None  # the agent produced a non-empty patch
    patch_applied: bool | None = None  # the patch applied cleanly
    f2p_pass: int | None = None  # FAIL_TO_PASS checks that now pass
    f2p_fail: int | None = None  # FAIL_TO_PASS checks that still fail
    p2p_pass: int | None = None  # PASS_TO_PASS checks that still pass
    p2p_fail: int | None = None  # PASS_TO_PASS checks the patch broke


@dataclass(frozen=True, slots=True)
class ScorePart:
    """One graded part of a trial (a question of a multi-part task), from the verifier."""

    score: float  # the part's score, usually in [0, 1]
    group: str | None = None  # the field the benchmark breaks scores down by (a category)


@dataclass(frozen=True, slots=True)
class TrialFacts:
    """Everything the derivations need about one trial (one agent attempt at one task)."""

    job: str  # harbor.job.name
    trial: str  # harbor.trial.name (or the fallback session identity)
    task: str | None  # harbor.task.name
    source: str | None = None  # harbor.task.source: the dataset, e.g. "swebench-verified@1.0"
    attempt: int | None = None  # harbor.attempt, 1-based; None when the harness did not say
    agent_name: str | None = None  # harbor.agent.name
    agent_version: str | None = None  # harbor.agent.version
    model: str | None = None  # harbor.model.name
    started_at: float | None = None  # start of the root harbor.trial span
    finished_at: float | None = None  # end of the root harbor.trial span; None while running
    job_n_planned: int | None = None  # harbor.job.n_total_trials: the job's planned trials, as its run record said
    environment_setup: Interval | None = None  # harbor.environment_setup span, if recorded
    agent_setup: Interval | None = None  # harbor.agent_setup span, if recorded
    agent_execution: Interval | None = None  # harbor.agent_execution span, if recorded
    verifier: Interval | None = None  # harbor.verifier span, if recorded
    rewards: dict[str, float] | None = None  # harbor.reward.<key> values; None: no verifier result
    exception_type: str | None = None  # exception.type of the first exception event
    exception_message: str | None = None  # exception.message of that event
    is_running: bool = False  # the root span has not ended
    report: VerifierReport | None = None  # the benchmark's grading report, if any
    parts: tuple[ScorePart, ...] = ()  # graded parts, if the verifier scored parts
    category: str | None = None  # the task's category (AgentCompass categories, score groups)
    n_input_tokens: int | None = None  # prompt tokens, cached ones included
    n_cache_tokens: int | None = None  # the cached part of n_input_tokens (a subset)
    n_output_tokens: int | None = None  # completion tokens
    cost_usd: float | None = None  # recorded cost; None when nothing priced the trial
    n_steps: int | None = None  # agent steps (model turns)
    n_model_calls: int | None = None  # llm_request events
    n_tool_calls: int | None = None  # tool events, empty placeholder calls excluded
    n_rate_limited: int | None = None  # model calls answered with HTTP 429; None: no call statuses seen


@dataclass(frozen=True, slots=True)
class LoadedTrial:
    """A trial's facts plus what the store saw of it (for listing, not for derivation)."""

    facts: TrialFacts
    first_seen: float | None  # earliest event, UNIX seconds
    last_seen: float | None  # latest event end, UNIX seconds
    n_events: int  # agent events recorded for the trial


@dataclass(frozen=True, slots=True)
class AgentCall:
    """One tool call the agent made."""

    index: int  # position among the trial's tool calls, 0-based, in call order
    name: str  # the tool name, verbatim
    category: ToolCategory  # plan / search / read / edit / execute / other
    timestamp: float | None = None  # when the call started; None when not recorded
    step: int | None = None  # the agent step (model turn) that issued it
    targets: tuple[str, ...] = ()  # paths or subjects the call acted on
    args_key: str | None = None  # a normalised digest of the arguments, to spot exact repeats
    failed: bool | None = None  # True: returned an error; None: no success signal recorded
    # `failed` is a guess, not a status: a span that ended without an error status (harborlight/agent/rules.py,
    # the success fact's @span_ended alias) says the call finished, not that it worked
    failed_inferred: bool = False
    tool_call_id: str | None = None  # the model's tool_call_id


@dataclass(frozen=True, slots=True)
class ModelCall:
    """One model (LLM) request."""

    timestamp: float | None  # when the request started
    input_tokens: int | None = None  # all prompt tokens, cache reads and writes included
    cached_tokens: int | None = None  # prompt tokens served from cache (a subset of input)
    cache_write_tokens: int | None = None  # prompt tokens written to cache (a subset of input)
    output_tokens: int | None = None  # completion tokens
    reasoning_tokens: int | None = None  # reasoning tokens, when the provider reports them
    cost_usd: float | None = None  # the call's cost, when recorded
    http_status: int | None = None  # the provider's HTTP status, e.g. 429
    error_type: str | None = None  # error.type of a failed call


@dataclass(frozen=True, slots=True)
class JobFacts:
    """What the run record says about the job as a whole (all optional)."""

    job: str  # harbor.job.name
    started_at: float | None = None  # job start, when the harness recorded it
    finished_at: float | None = None  # job end; None while running
    n_planned: int | None = None  # planned trials from the run record
    n_retries: int | None = None  # retries the harness recorded
    is_running: bool | None = None  # the run record's own running/pending state
    agent_label: str | None = None  # the configured agent (class of a module:Class path)
    extra: dict[str, str] = field(default_factory=dict)  # anything else the run record carries
