"""A job streamed live (the lifecycle spans harborlight/harbor/harness/ emits plus Claude Code-style log events)
exports to a valid Harbor job whose trajectory is what the agent sent; a trial still running has no
result.json unless a snapshot is asked for; the API serves the same job as a .tar.gz."""

import io
import json
import tarfile

import httpx
from harbor.models.trajectories import Trajectory
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

from harborlight.harbor.harness import TrialIdentity, trial_spans
from harborlight.harbor.harness.lifecycle import tracer_provider
from tests.agent.otlp_build import MS, T0, Logs, Traces
from tests.importers.cli import run
from tests.importers.exported import validate_job, view

LOGGER = "com.anthropic.claude_code.events"


def _stream_trial(server, job: str, trial: str) -> None:
    identity = TrialIdentity(
        job=job,
        trial=trial,
        task="fix-bug",
        attempt=1,
        agent="claude-code",
        agent_version="2.1.332",
        model="anthropic/claude-sonnet-4-5",
    )
    provider = tracer_provider(identity, OTLPSpanExporter(endpoint=f"{server.http_url}/v1/traces"))
    with trial_spans(identity, provider, start_time=T0, end_time=T0 + 60_000 * MS) as spans:
        with spans.phase("environment_setup", T0 + 1 * MS, T0 + 1000 * MS):
            pass
        with spans.phase("agent_execution", T0 + 2000 * MS, T0 + 50_000 * MS):
            pass
        with spans.verifier(T0 + 51_000 * MS, T0 + 59_000 * MS) as verifier:
            verifier.reward("reward", 1.0)
    provider.shutdown()
    logs = Logs({"service.name": "claude-code", **identity.resource_attributes()}, scope=LOGGER)

    def emit(name: str, at_ms: int, **attrs) -> None:
        logs.event({"session.id": f"s-{trial}", "event.name": name, **attrs}, at_ms=at_ms, body=f"claude_code.{name}")

    emit("user_prompt", 2100, prompt="Fix the failing test", prompt_length="20")
    emit("api_error", 3000, model="claude-sonnet-4-5", error="rate_limit_error", status_code=429, duration_ms=800)
    emit(
        "api_request",
        6000,
        model="claude-sonnet-4-5",
        input_tokens=12,
        output_tokens=340,
        cache_read_tokens=9000,
        cache_creation_tokens=1500,
        cost_usd=0.0421,
        duration_ms=2500,
    )
    emit(
        "tool_result",
        6500,
        tool_name="Read",
        tool_use_id="toolu_01",
        success="true",
        duration_ms="35",
        tool_input='{"file_path": "/repo/app.py"}',
    )
    emit(
        "api_request",
        9000,
        model="claude-sonnet-4-5",
        input_tokens=20,
        output_tokens=50,
        cache_read_tokens=10000,
        cache_creation_tokens=0,
        cost_usd=0.01,
        duration_ms=2000,
    )
    emit("assistant_response", 9100, response="Fixed the off-by-one.", model="claude-sonnet-4-5")
    logs.send(server)


def test_live_job_exports_to_a_valid_harbor_job_matching_what_was_sent(server, unique, tmp_path, capsys):
    job = f"live-{unique}"
    _stream_trial(server, job, f"fix-bug__{unique}")
    running = Traces(
        {
            "service.name": "harbor",
            "harbor.job.name": job,
            "harbor.trial.name": f"slow__{unique}",
            "harbor.task.name": "slow",
        },
        scope="harborlight.harness",
    )
    running.span("harbor.environment_setup", start_ms=100, dur_ms=500)
    running.send(server)

    out = tmp_path / "jobs"
    code, _, err = run(capsys, "export-job", job, "--out", str(out), "--server", server.http_url)
    assert code == 0, err
    results = validate_job(out / job)
    assert list(results) == [f"fix-bug__{unique}"]  # the running trial has no result.json
    assert (out / job / f"slow__{unique}" / "config.json").is_file()
    result = results[f"fix-bug__{unique}"]
    assert result.verifier_result.rewards == {"reward": 1.0}
    assert (
        result.agent_result.n_input_tokens,
        result.agent_result.n_cache_tokens,
        result.agent_result.n_output_tokens,
    ) == (12 + 9000 + 1500 + 20 + 10000, 19000, 390)
    assert abs(result.agent_result.cost_usd - 0.0521) < 1e-9
    assert result.agent_info.model_info.name == "claude-sonnet-4-5"
    assert result.agent_execution.started_at.timestamp() * 1e9 == T0 + 2000 * MS

    trajectory = Trajectory.model_validate_json(
        (out / job / f"fix-bug__{unique}" / "agent" / "trajectory.json").read_text()
    )
    assert [(s.source, s.message) for s in trajectory.steps] == [
        ("user", "Fix the failing test"),
        ("agent", ""),
        ("agent", "Fixed the off-by-one."),
    ]
    call = trajectory.steps[1]
    assert (call.metrics.prompt_tokens, call.metrics.cached_tokens, call.metrics.cost_usd) == (10512, 9000, 0.0421)
    assert [(c.tool_call_id, c.function_name, c.arguments) for c in call.tool_calls] == [
        ("toolu_01", "Read", {"file_path": "/repo/app.py"})
    ]
    assert call.observation.results[0].source_call_id == "toolu_01"
    gateway = [
        json.loads(line)
        for line in (out / job / f"fix-bug__{unique}" / "agent" / "gateway.log").read_text().splitlines()
    ]
    assert [g["status"] for g in gateway] == [429, 200, 200]
    trace = json.loads((out / job / f"fix-bug__{unique}" / "trace.json").read_text())
    assert {s["kind"] for s in trace["spans"]} >= {"session", "llm_request", "tool", "user_message"}
    assert all(s["start_ns"] > 0 and s["timing"] in ("measured", "inferred", "unknown") for s in trace["spans"])
    job_result = json.loads((out / job / "result.json").read_text())
    assert job_result["stats"]["n_running_trials"] == 1 and job_result["finished_at"] is None
    # No lock.json: its task digests are not in telemetry, and a made-up one would fail Harbor's check.
    assert not list((out / job).rglob("lock.json"))
    view(out, job)

    code, _, err = run(capsys, "export-job", job, "--out", str(out), "--snapshot", "--server", server.http_url)
    assert code == 0, err
    assert (out / job / f"slow__{unique}" / "result.json").is_file()
    validate_job(out / job)

    reply = httpx.get(f"{server.http_url}/api/jobs/{job}/export", timeout=120)
    assert reply.status_code == 200 and reply.headers["content-type"] == "application/gzip"
    assert reply.content == httpx.get(f"{server.http_url}/api/jobs/{job}/export", timeout=120).content
    with tarfile.open(fileobj=io.BytesIO(reply.content)) as tar:
        names = tar.getnames()
    assert f"{job}/fix-bug__{unique}/agent/trajectory.json" in names and f"{job}/result.json" in names
    assert f"{job}/slow__{unique}/result.json" not in names


def test_one_trials_trajectory_is_served_as_its_export_writes_it(server, unique, tmp_path, capsys):
    job, trial = f"traj-{unique}", f"fix-bug__{unique}"
    _stream_trial(server, job, trial)
    code, _, err = run(capsys, "export-job", job, "--out", str(tmp_path), "--server", server.http_url)
    assert code == 0, err
    exported = (tmp_path / job / trial / "agent" / "trajectory.json").read_text()

    url = f"{server.http_url}/api/trials/{trial}/trajectory"
    reply = httpx.get(url, timeout=120)
    assert reply.status_code == 200 and reply.headers["content-type"] == "application/json"
    assert reply.text == exported  # the same build as the export's file, to the byte
    trajectory = Trajectory.model_validate_json(reply.text)  # Harbor's own ATIF model
    assert [s.source for s in trajectory.steps] == ["user", "agent", "agent"]
    assert httpx.get(url, params={"job": job}, timeout=120).text == exported

    _stream_trial(server, f"again-{unique}", trial)  # the same trial name in a second job
    ambiguous = httpx.get(url, timeout=120)
    assert ambiguous.status_code == 400 and "is in 2 jobs" in ambiguous.json()["detail"]
    assert httpx.get(url, params={"job": job}, timeout=120).text == exported
    unknown = httpx.get(f"{server.http_url}/api/trials/no-such-{unique}/trajectory", timeout=120)
    assert (unknown.status_code, unknown.json()["detail"]) == (404, f"no agent events for trial 'no-such-{unique}'")
