"""A small job streamed through the receiver the way a live harness and its agents do: the harness
lifecycle spans (harborlight/harbor/harness/) over OTLP/HTTP, plus agent spans and Claude Code log events."""

from dataclasses import dataclass

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from harborlight.harbor.harness import TrialIdentity, TrialSpans, trial_spans
from harborlight.harbor.harness.lifecycle import SCOPE, tracer_provider
from tests.agent.otlp_build import MS, T0, Logs, Traces

S = 1_000 * MS  # one second in nanoseconds


@dataclass(frozen=True)
class StreamedJob:
    job: str
    resolved: str
    failed: str
    infra: str
    limited: str
    running: str


def _phases(
    trial: TrialSpans,
    start: int,
    env: int,
    setup: int,
    agent: int,
    verifier: int,
    reward: float | None = None,
    env_error: str | None = None,
    agent_error: str | None = None,
) -> None:
    """Back-to-back phases starting at `start` (seconds from T0); durations in seconds."""
    t = T0 + start * S
    with trial.phase("environment_setup", t, t + env * S) as span:
        if env_error:
            trial.exception(env_error, "environment did not start in 600 s", span=span, time=t + env * S)
            return
    t += env * S
    with trial.phase("agent_setup", t, t + setup * S):
        pass
    t += setup * S
    if not agent:  # not reached yet
        return
    with trial.phase("agent_execution", t, t + agent * S) as span:
        if agent_error:
            trial.exception(agent_error, "429 Too Many Requests: retries exhausted", span=span, time=t + agent * S)
    t += agent * S
    if verifier:
        with trial.verifier(t, t + verifier * S) as v:
            if reward is not None:
                v.reward("reward", reward)


def _agent_spans(identity: TrialIdentity, server, start_s: int, statuses: tuple[int, ...] = (200, 200)) -> None:
    """Model calls (tokens, cost, statuses) and tool calls: read, edit, run tests, read again."""
    traces = Traces({**identity.resource_attributes(), "service.name": f"agent-{identity.job}"})
    at = start_s * 1000 + 20_000  # ms after T0, inside the agent_execution phase
    for i, status in enumerate(statuses):
        attrs = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-5", "http.response.status_code": status}
        if status == 200:
            attrs |= {
                "gen_ai.usage.input_tokens": 1000,
                "gen_ai.usage.cache_read.input_tokens": 400,
                "gen_ai.usage.output_tokens": 100,
                "gen_ai.usage.cost": 0.01,
            }
        traces.span(f"chat gpt-5 {i}", attrs, start_ms=at + i * 1000, dur_ms=500)
    tools = (
        ("Read", {"file_path": "/testbed/src/app.py"}),
        ("Edit", {"file_path": "/testbed/src/app.py"}),
        ("Bash", {"command": "pytest -q"}),
        ("Read", {"file_path": "/testbed/src/app.py"}),
    )
    for j, (name, args) in enumerate(tools):
        traces.span(
            f"execute_tool {name}",
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": name,
                "gen_ai.tool.call.id": f"call-{j}",
                "gen_ai.tool.call.arguments": str(args).replace("'", '"'),
                **args,
            },
            start_ms=at + 5_000 + j * 2_000,
            dur_ms=300,
        )
    traces.send(server)


def _claude_logs(identity: TrialIdentity, server, start_s: int) -> None:
    logs = Logs(
        {**identity.resource_attributes(), "service.name": "claude-code"}, scope="com.anthropic.claude_code.events"
    )
    at = start_s * 1000 + 20_000
    logs.event(
        {
            "event.name": "api_request",
            "model": "claude-sonnet-4-5",
            "input_tokens": 50,
            "cache_read_tokens": 450,
            "output_tokens": 30,
            "cost_usd": 0.002,
            "duration_ms": 900,
        },
        at_ms=at + 1000,
        body="claude_code.api_request",
    )
    logs.event(
        {
            "event.name": "tool_result",
            "tool_name": "Grep",
            "tool_use_id": "toolu_1",
            "success": "false",
            "tool_parameters": '{"pattern": "def main"}',
            "duration_ms": "40",
        },
        at_ms=at + 2000,
        body="claude_code.tool_result",
    )
    logs.send(server)
    # Claude Code's traces tell the same two calls again: each is counted once (harborlight/agent/twins.py).
    traces = Traces(
        {**identity.resource_attributes(), "service.name": "claude-code"}, scope="com.anthropic.claude_code.tracing"
    )
    call = traces.span(
        "claude_code.llm_request",
        {"model": "claude-sonnet-4-5", "input_tokens": 50, "cache_read_tokens": 450, "output_tokens": 30},
        start_ms=at + 100,
        dur_ms=900,
    )
    traces.span(
        "claude_code.tool", {"tool_name": "Grep", "tool_use_id": "toolu_1"}, parent=call, start_ms=at + 1960, dur_ms=40
    )
    traces.send(server)


def stream_job(server, unique: str, failed_reward: float = 0.0) -> StreamedJob:
    """failed_reward: the reward of the `add-feature` trial (0.0: it fails; 1.0: it is resolved too)."""
    job = f"job-{unique}"
    names = StreamedJob(
        job, f"{unique}-resolved", f"{unique}-failed", f"{unique}-infra", f"{unique}-limited", f"{unique}-running"
    )

    def identity(trial: str, task: str) -> TrialIdentity:
        return TrialIdentity(
            job=job,
            trial=trial,
            task=task,
            task_source="demo@1",
            attempt=1,
            agent="codex",
            agent_version="0.9",
            model="gpt-5",
            service=f"harness-{unique}",
        )

    def run(trial: str, task: str, start: int, total: int, **phases) -> TrialIdentity:
        ident = identity(trial, task)
        provider = tracer_provider(ident, OTLPSpanExporter(endpoint=f"{server.http_url}/v1/traces"))
        with trial_spans(ident, provider, T0 + start * S, T0 + (start + total) * S) as spans:
            _phases(spans, start, **phases)
        provider.shutdown()
        return ident

    resolved = run(names.resolved, "fix-bug", 0, 100, env=10, setup=5, agent=60, verifier=20, reward=1.0)
    _agent_spans(resolved, server, 0 + 15)
    failed = run(names.failed, "add-feature", 0, 90, env=10, setup=5, agent=50, verifier=20, reward=failed_reward)
    _claude_logs(failed, server, 15)
    run(names.infra, "refactor", 0, 30, env=30, setup=0, agent=0, verifier=0, env_error="EnvironmentStartTimeoutError")
    limited = run(
        names.limited, "write-docs", 0, 80, env=10, setup=5, agent=40, verifier=0, agent_error="ApiRateLimitError"
    )
    _agent_spans(limited, server, 15, statuses=(429, 429, 200))

    ident = identity(names.running, "migrate-db")  # the root span never ends: still running
    provider = tracer_provider(ident, OTLPSpanExporter(endpoint=f"{server.http_url}/v1/traces"))
    tracer = provider.get_tracer(SCOPE)
    root = tracer.start_span("harbor.trial", start_time=T0)
    _phases(TrialSpans(tracer, root), 0, env=10, setup=5, agent=0, verifier=0)
    provider.force_flush()
    server.caught_up()  # stored, for readers that do not wait on this server's log (another server on its store)
    return names


def stream_rewards(server, job: str, rewards: dict[str, float], unique: str) -> None:
    """One finished trial per task of `rewards`, with the harness's four phases and the task's reward:
    a plain job to compare with another on the same tasks."""
    for n, (task, reward) in enumerate(rewards.items()):
        ident = TrialIdentity(
            job=job,
            trial=f"{job}-{task}",
            task=task,
            task_source="demo@1",
            attempt=1,
            agent="codex",
            agent_version="0.9",
            model="gpt-5",
            service=f"harness-{unique}",
        )
        # a batch processor: the trial's spans go in one request when it ends
        provider = tracer_provider(
            ident, processor=BatchSpanProcessor(OTLPSpanExporter(endpoint=f"{server.http_url}/v1/traces"))
        )
        with trial_spans(ident, provider, T0 + n * S, T0 + (n + 40) * S) as spans:
            _phases(spans, n, env=5, setup=5, agent=20, verifier=10, reward=reward)
        provider.shutdown()
