"""A job on the session server for the CLI tests: the streamed job of tests/query/job_stream.py (harness
spans through the OpenTelemetry SDK exporter, agent spans, Claude Code events), one more trial whose
agent spawns a sub-agent from a tool call, and a second job on the same tasks to compare with."""

import uuid
from dataclasses import dataclass

import pytest

from tests.agent.otlp_build import Traces
from tests.query.job_stream import StreamedJob, stream_job


@dataclass(frozen=True)
class CliJobs:
    job: StreamedJob
    subagent: str  # a trial (of its own job) whose tool call `delegate` runs the sub-agent `explorer`
    other: StreamedJob  # the same tasks; its add-feature trial is resolved (a flip against job)


def send_subagent_trial(server, job: str, trial: str) -> None:
    """OpenHands through Laminar: the sub-agent span has no kind of its own (the rules say `group`);
    only the tree tells it is a sub-agent: under a tool call, reaching a model call."""
    traces = Traces({"service.name": f"openhands-{trial}", "harbor.job.name": job, "harbor.trial.name": trial})
    root = traces.span(f"trial {trial}", {"lmnr.span.type": "EVALUATION"}, dur_ms=1000)
    agent = traces.span("agent", {"lmnr.span.type": "EXECUTOR"}, parent=root, start_ms=1, dur_ms=900)
    traces.span(
        "litellm.completion",
        {
            "lmnr.span.type": "LLM",
            "gen_ai.request.model": "claude-opus-4",
            "gen_ai.usage.input_tokens": 300,
            "gen_ai.usage.output_tokens": 20,
        },
        parent=agent,
        start_ms=2,
        dur_ms=15,
    )
    tool = traces.span(
        "delegate",
        {"lmnr.span.type": "TOOL", "lmnr.span.input": '{"agent": "explorer"}'},
        parent=agent,
        start_ms=20,
        dur_ms=500,
    )
    sub = traces.span("explorer", {"lmnr.span.type": "EXECUTOR"}, parent=tool, start_ms=21, dur_ms=400)
    traces.span(
        "litellm.completion",
        {
            "lmnr.span.type": "LLM",
            "gen_ai.request.model": "claude-haiku-4",
            "gen_ai.usage.input_tokens": 90,
            "gen_ai.usage.output_tokens": 9,
        },
        parent=sub,
        start_ms=22,
        dur_ms=100,
    )
    traces.span(
        "terminal",
        {"lmnr.span.type": "TOOL", "lmnr.span.input": '{"command": "ls"}'},
        parent=sub,
        start_ms=130,
        dur_ms=5,
    )
    traces.send(server)


def send_jobs(server) -> CliJobs:
    unique = uuid.uuid4().hex[:12]
    job = stream_job(server, unique)
    subagent = f"{unique}-subagent"
    send_subagent_trial(server, f"{job.job}-agents", subagent)
    return CliJobs(job, subagent, stream_job(server, f"{unique}b", failed_reward=1.0))


@pytest.fixture(scope="session")
def jobs(server) -> CliJobs:
    return send_jobs(server)
