"""One trial however its data arrives: an agent streamed a trial under its own session id (Harbor hands
an agent only the job's variables, so its telemetry names the job but not the trial), then the trial's
Harbor job directory is imported. The telemetry is a real agent's run (tests/real_agents/fixtures, Claude
Code 2.1.197 naming its session by `session.id`, Codex 0.171.0 by `conversation.id`) replayed through
`harborlight import otlp`, with its harbor.trial.name taken out as such a run sends it; the directory is
written with Harbor's own models, its ATIF trajectory telling the run's model calls (the tokens and cost
the live telemetry measured) under the recorded session id, as Harbor's agents write it."""

import json
import subprocess
import sys
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from harbor.job_plan import JobPlan
from harbor.models.agent.context import AgentContext
from harbor.models.job.config import JobConfig
from harbor.models.job.result import JobResult, JobStats
from harbor.models.trajectories import Agent, Metrics, Step, Trajectory
from harbor.models.trial.config import AgentConfig, TaskConfig
from harbor.models.trial.result import AgentInfo, ModelInfo, TimingInfo, TrialResult
from harbor.models.verifier.result import VerifierResult

from tests.importers.harbor_job import make_task
from tests.real_agents.recordings import FIXTURES

# Harbor's agent: (fixture, the attribute the agent names its session by, its version, its model's provider)
RUNS = {
    "claude-code": ("claude-code-2.1.197-three-turn-http", "session.id", "2.1.197", "anthropic"),
    "codex": ("codex-0.171.0-three-turn-http", "conversation.id", "0.171.0", "openai"),
}


def _records(stem: str, key: str) -> tuple[list[str], str]:
    """The fixture's lines and the session id the agent named."""
    lines = (FIXTURES / f"{stem}.jsonl").read_text().splitlines()
    for line in lines:
        for resource in json.loads(line).get("resourceLogs", []):
            for scope in resource["scopeLogs"]:
                for record in scope["logRecords"]:
                    for a in record["attributes"]:
                        if a["key"] == key:
                            return lines, a["value"]["stringValue"]
    raise AssertionError(f"{stem} names no {key}")


def _without_trial(line: str, job: str) -> str:
    """The request as a run given only `OTEL_RESOURCE_ATTRIBUTES=harbor.job.name=JOB` sends it."""

    def strip(attributes):
        kept = [a for a in attributes if a["key"] != "harbor.trial.name"]
        for a in kept:
            if a["key"] == "harbor.job.name":
                a["value"] = {"stringValue": job}
        return kept

    body = json.loads(line)
    for signal, scopes, items in (
        ("resourceLogs", "scopeLogs", "logRecords"),
        ("resourceSpans", "scopeSpans", "spans"),
        ("resourceMetrics", "scopeMetrics", None),
    ):
        for resource in body.get(signal, []):
            resource["resource"]["attributes"] = strip(resource["resource"]["attributes"])
            for scope in resource.get(scopes, []):
                for item in scope.get(items, []) if items else []:
                    item["attributes"] = strip(item.get("attributes", []))
    return json.dumps(body)


def _job_dir(root, job: str, agent: str, calls: list[dict], session: str):
    """The trial's job directory, its trajectory's steps the agent's main model calls (side calls are none)."""
    _, _, version, provider = RUNS[agent]
    calls = [c for c in calls if c["side_call"] is None]
    model = calls[0]["model"]
    task = make_task(root, "three-turn")
    config = JobConfig(
        job_name=job,
        jobs_dir=root / "jobs",
        skip_credential_checks=True,
        agents=[AgentConfig(name=agent, model_name=f"{provider}/{model}")],
        tasks=[TaskConfig(path=task)],
    )
    job_id = uuid.uuid4()
    job_dir = root / "jobs" / job
    job_dir.mkdir(parents=True)
    (job_dir / "config.json").write_text(config.model_dump_json(indent=4))
    (trial_config,) = JobPlan.build_trial_configs(config, [TaskConfig(path=task)], job_id=job_id)
    trial_dir = job_dir / trial_config.trial_name
    (trial_dir / "agent").mkdir(parents=True)
    (trial_dir / "config.json").write_text(trial_config.model_dump_json(indent=4, exclude_defaults=True))
    times = [datetime.fromtimestamp(c["start_unix_nano"] / 1e9, UTC) for c in calls]
    steps = [
        Step(
            step_id=1,
            timestamp=(times[0] - timedelta(seconds=1)).isoformat(),
            source="user",
            message="Do the three turns.",
        )
    ]
    steps += [
        Step(
            step_id=i + 2,
            timestamp=t.isoformat(),
            source="agent",
            model_name=c["model"],
            message=f"turn {i}",
            metrics=Metrics(
                prompt_tokens=c["tokens"]["input"],
                completion_tokens=c["tokens"]["output"],
                cached_tokens=c["tokens"]["cached"],
                cost_usd=c["cost_usd"],
            ),
        )
        for i, (c, t) in enumerate(zip(calls, times, strict=True))
    ]
    trajectory = Trajectory(
        schema_version="ATIF-v1.6",
        session_id=session,
        steps=steps,
        agent=Agent(name=agent, version=version, model_name=model),
    )
    (trial_dir / "agent" / "trajectory.json").write_text(trajectory.model_dump_json(indent=2, exclude_none=True))
    start, end = times[0] - timedelta(seconds=5), times[-1] + timedelta(seconds=5)
    result = TrialResult(
        id=uuid.uuid4(),
        task_name="three-turn",
        trial_name=trial_config.trial_name,
        trial_uri=trial_dir.as_uri(),
        task_id=trial_config.task.get_task_id(),
        task_checksum="0" * 64,
        config=trial_config,
        agent_info=AgentInfo(name=agent, version=version, model_info=ModelInfo(name=model, provider=provider)),
        agent_result=AgentContext(n_input_tokens=sum(c["tokens"]["input"] or 0 for c in calls)),
        verifier_result=VerifierResult(rewards={"reward": 1.0}),
        started_at=start,
        finished_at=end,
        agent_execution=TimingInfo(started_at=times[0] - timedelta(seconds=1), finished_at=times[-1]),
        verifier=TimingInfo(started_at=times[-1], finished_at=end),
    )
    (trial_dir / "result.json").write_text(result.model_dump_json(indent=4))
    (job_dir / "result.json").write_text(
        JobResult(
            id=job_id,
            started_at=start.replace(tzinfo=None),
            finished_at=end.replace(tzinfo=None),
            n_total_trials=1,
            stats=JobStats.from_trial_results([result], n_total_trials=1),
        ).model_dump_json(indent=4)
    )
    return job_dir


def _cli(server, *args: str) -> None:
    """The command against the server, and every request it sent stored before the test reads on."""
    done = subprocess.run(
        [sys.executable, "-m", "harborlight.cli.main", *args, "--server", server.http_url],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    server.caught_up()


def _model_calls(server, job: str) -> list[dict]:
    page = httpx.get(
        f"{server.http_url}/api/spans", params={"job": job, "kind": "llm_request", "limit": 100}, timeout=60
    ).json()
    return page["items"]


def _stream_then_import(server, tmp_path, job: str, agent: str) -> tuple[dict, list[dict], dict, Path, str]:
    """The job's row with the agent's telemetry streamed, its model calls, the row with the job directory
    imported after, the job directory and the session id."""
    stem, key, _, _ = RUNS[agent]
    lines, recorded = _records(stem, key)
    session = str(uuid.uuid4())  # each replay a run of its own, as each real run has its own session
    telemetry = tmp_path / "telemetry.jsonl"
    telemetry.write_text("".join(_without_trial(line.replace(recorded, session), job) + "\n" for line in lines))
    _cli(server, "import", "otlp", str(telemetry))
    live = httpx.get(f"{server.http_url}/api/jobs/{job}", timeout=60).json()
    live_calls = _model_calls(server, job)
    job_dir = _job_dir(tmp_path, job, agent, live_calls, session)
    _cli(server, "import", "harbor", str(job_dir))
    joined = httpx.get(f"{server.http_url}/api/jobs/{job}", timeout=60).json()
    return live, live_calls, joined, job_dir, session


@pytest.mark.parametrize("agent", RUNS)
def test_a_trial_streamed_under_its_session_then_imported_is_one_trial(server, tmp_path, unique, agent):
    job = f"session-link-{agent}-{unique}"
    live, live_calls, joined, job_dir, session = _stream_then_import(server, tmp_path, job, agent)
    assert joined["n_trials"]["value"] == live["n_trials"]["value"]  # the imported trial is the session's
    harbor_name = next(d.name for d in job_dir.iterdir() if d.is_dir())
    trajectory = httpx.get(f"{server.http_url}/api/trials/{harbor_name}/trajectory", timeout=60).json()
    assert trajectory["session_id"] == session
    # Each model call once, as live telemetry measured it (the trajectory's retelling of them not counted),
    # all of them the Harbor trial's.
    joined_calls = _model_calls(server, job)
    assert sorted(c["event_id"] for c in joined_calls) == sorted(c["event_id"] for c in live_calls)
    assert {c["trial"] for c in joined_calls} == {harbor_name}
    assert joined["total_input_tokens"]["value"] == live["total_input_tokens"]["value"]
    assert joined["total_cost_usd"]["value"] == live["total_cost_usd"]["value"]
    # The verdict only the job directory knows, on the trial the calls are in.
    assert httpx.get(f"{server.http_url}/api/trials/{harbor_name}", timeout=60).json()["reward"]["value"] == 1.0
    _cli(server, "import", "harbor", str(job_dir))
    assert httpx.get(f"{server.http_url}/api/jobs/{job}", timeout=60).json() == joined


@pytest.mark.parametrize("agent", RUNS)
def test_the_job_of_a_trial_streamed_without_its_name_has_one_trial(server, tmp_path, unique, agent):
    job = f"session-one-{agent}-{unique}"
    live, _, joined, job_dir, _ = _stream_then_import(server, tmp_path, job, agent)
    # One run, one trial, before the directory is imported and after (Codex's run is 18 traces: its
    # thread and turn traces name the conversation, its process-level steps name nothing).
    assert live["n_trials"]["value"] == 1
    assert joined["n_trials"]["value"] == 1
    assert joined["raw_solve_rate"]["value"] == 1.0
    harbor_name = next(d.name for d in job_dir.iterdir() if d.is_dir())
    trials = httpx.get(f"{server.http_url}/api/jobs/{job}/trials", timeout=60).json()["items"]
    assert [t["trial"] for t in trials] == [harbor_name]


def test_codex_process_steps_are_kept_in_the_job_and_of_no_trial(server, tmp_path, unique):
    """Codex's process-level root spans (auth, fs.read_file, initialize, ...) under no session: stored and
    listed among the job's spans, but no trial of their own; its thread/start and session_loop traces (which
    name the conversation as thread_id) and its turns are the run's trial."""
    job = f"codex-steps-{unique}"
    _, _, _, job_dir, _ = _stream_then_import(server, tmp_path, job, "codex")
    harbor_name = next(d.name for d in job_dir.iterdir() if d.is_dir())
    spans = [
        s
        for kind in ("group", "session")
        for s in httpx.get(
            f"{server.http_url}/api/spans", params={"job": job, "kind": kind, "limit": 1000}, timeout=60
        ).json()["items"]
    ]
    by_name = {}
    for s in spans:
        by_name.setdefault(s["name"], set()).add(s["trial"])
    for root in ("thread/start", "turn/start", "session_loop"):
        assert by_name[root] == {harbor_name}, root
    for step in ("initialize", "thread/items/list", "thread/unsubscribe"):  # root spans only, in no trace of the run
        assert by_name[step] == {None}, step
