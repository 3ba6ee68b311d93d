"""A job of several Claude Code trials, most of which tell each call twice (a span and a log event),
for the readers that resolve twins a batch of trials at a time (live history, Harbor export).

The trials overlap in time, and each resolves differently (harborlight/agent/twins.py): both signals
whole (the spans win the tie), events lost (the spans win), spans lost (the events win), spans only,
events only; plus a log event with no trial name at all (the job's unnamed rows). Each job starts at
its own time: Claude Code's events carry no trace, and the export matches a log record to its event by
service, trace, span and time, so two jobs' events at the same instant would be told apart by name only."""

import random

from tests.agent.otlp_build import Logs, Traces

MODES = ("both", "events_lost", "spans_lost", "spans_only", "events_only", "both")
N_CALLS = 3  # model calls, and as many tool calls, per trial
TRACER, LOGGER = "com.anthropic.claude_code.tracing", "com.anthropic.claude_code.events"


def trial_names(job: str) -> list[str]:
    return [f"{job}-t{i}" for i in range(len(MODES))]


def send_twin_job(server, job: str) -> None:
    start_ms = random.Random(job).randrange(1, 10**9)
    for i, (trial, mode) in enumerate(zip(trial_names(job), MODES, strict=True)):
        _send_trial(server, job, trial, mode, start_ms=start_ms + i * 700)
    unnamed = Logs({"service.name": "claude-code", "harbor.job.name": job}, scope=LOGGER)
    unnamed.event(
        {
            "event.name": "api_request",
            "model": "claude-haiku-4-5",
            "input_tokens": 5,
            "output_tokens": 1,
            "cost_usd": 0.0001,
            "duration_ms": 100,
        },
        at_ms=start_ms + 1_000,
        body="claude_code.api_request",
    )
    unnamed.send(server)


def _send_trial(server, job: str, trial: str, mode: str, start_ms: int) -> None:
    resource = {
        "service.name": "claude-code",
        "harbor.job.name": job,
        "harbor.trial.name": trial,
        "harbor.task.name": "fix-bug",
    }
    harness = Traces({**resource, "service.name": "harness"})
    root = harness.span("harbor.trial", {}, start_ms=start_ms, dur_ms=4_000)
    harness.span("harbor.agent_execution", {}, parent=root, start_ms=start_ms + 100, dur_ms=3_500)
    spans, events = Traces(resource, scope=TRACER), Logs(resource, scope=LOGGER)
    session = {"session.id": f"{trial}-session"}
    turn = spans.span(
        "claude_code.interaction",
        {**session, "user_prompt": "Fix the failing test"},
        start_ms=start_ms + 100,
        dur_ms=3_400,
    )
    events.event(
        {**session, "event.name": "user_prompt", "prompt": "Fix the failing test"},
        at_ms=start_ms + 100,
        body="claude_code.user_prompt",
    )
    for k in range(N_CALLS):
        at = start_ms + 200 + k * 1_000
        tokens = {"input_tokens": 10 + k, "output_tokens": 50 + k, "cache_read_tokens": 900, "cache_creation_tokens": 0}
        request = {"model": "claude-sonnet-4-5", "request_id": f"{trial}-req{k}"}
        lost_span = mode == "spans_lost" and k > 0
        lost_event = mode == "events_lost" and k == 1
        if mode != "events_only" and not lost_span:
            spans.span(
                "claude_code.llm_request",
                {**session, **request, **tokens, "status_code": 200},
                parent=turn,
                start_ms=at,
                dur_ms=300,
            )
            spans.span(
                "claude_code.tool",
                {**session, "tool_name": "Read", "tool_use_id": f"{trial}-tool{k}"},
                parent=turn,
                start_ms=at + 400,
                dur_ms=100,
            )
        if mode != "spans_only" and not lost_event:
            events.event(
                {
                    **session,
                    "event.name": "api_request",
                    **request,
                    **tokens,
                    "cost_usd": 0.01 * (k + 1),
                    "duration_ms": 300,
                },
                at_ms=at + 300,
                body="claude_code.api_request",
            )
            events.event(
                {
                    **session,
                    "event.name": "tool_result",
                    "tool_name": "Read",
                    "tool_use_id": f"{trial}-tool{k}",
                    "success": "false" if k == 2 else "true",
                    "duration_ms": 100,
                },
                at_ms=at + 500,
                body="claude_code.tool_result",
            )
    harness.send(server)
    if mode != "events_only":
        spans.send(server)
    if mode != "spans_only":
        events.send(server)
