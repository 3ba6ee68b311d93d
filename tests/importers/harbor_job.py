"""A Harbor job directory written the way Harbor writes one, with Harbor's own models: two tasks,
two attempts each; a solved trial, an agent timeout still graded, a trial that spawned a sub-agent,
and one still running (config.json, its log and trajectory so far, no result.json). The logs are
Harbor-like text with what a byte-for-byte copy must keep (non-ASCII, CRLF, no final newline)."""

import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

from harbor.job_plan import JobPlan
from harbor.models.agent.context import AgentContext
from harbor.models.job.config import JobConfig
from harbor.models.job.result import JobResult
from harbor.models.task.id import LocalTaskId
from harbor.models.trajectories import (
    Agent,
    FinalMetrics,
    Metrics,
    Observation,
    ObservationResult,
    Step,
    SubagentTrajectoryRef,
    ToolCall,
    Trajectory,
)
from harbor.models.trial.config import AgentConfig, TaskConfig
from harbor.models.trial.result import AgentInfo, ExceptionInfo, ModelInfo, TimingInfo, TrialResult
from harbor.models.verifier.result import VerifierResult

from harborlight.transfer.harbor_stats import job_stats  # noqa: F401  (imported by tests alongside)
from tests.importers.cli import run

T0 = datetime(2026, 5, 1, 12, 0, 0, tzinfo=UTC)


def make_task(root: Path, name: str) -> Path:
    task = root / "tasks" / name
    (task / "tests").mkdir(parents=True, exist_ok=True)
    (task / "environment").mkdir(exist_ok=True)
    (task / "task.toml").write_text(
        'version = "1.0"\n\n[verifier]\ntimeout_sec = 60.0\n\n[agent]\ntimeout_sec = 60.0\n'
    )
    (task / "instruction.md").write_text(f"Solve {name}.\n")
    (task / "tests" / "test.sh").write_text("#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n")
    (task / "environment" / "Dockerfile").write_text("FROM ubuntu:24.04\n")
    return task


def _at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def _iso(seconds: float) -> str:
    return _at(seconds).isoformat().replace("+00:00", "Z")


def trajectory(base: float, with_subagent: bool = False, session: str = "") -> Trajectory:
    """One trial's trajectory; `session` its session id (unique per run, as an agent's are)."""
    session = session or f"sess-{base}"
    steps = [
        Step(step_id=1, timestamp=_iso(base), source="system", message="You are a careful engineer."),
        Step(step_id=2, timestamp=_iso(base + 0.5), source="user", message="Fix the failing test in app.py."),
        Step(
            step_id=3,
            timestamp=_iso(base + 1),
            source="agent",
            model_name="claude-sonnet-4-5",
            message="Let me read the file.",
            reasoning_content="The test fails on an off-by-one.",
            tool_calls=[
                ToolCall(tool_call_id="toolu_01", function_name="Read", arguments={"file_path": "/app/app.py"}),
                ToolCall(tool_call_id="toolu_02", function_name="Bash", arguments={"command": "pytest -q"}),
            ],
            observation=Observation(
                results=[
                    ObservationResult(source_call_id="toolu_01", content="def f(x):\n    return x + 2\n"),
                    ObservationResult(source_call_id="toolu_02", content="1 failed"),
                ]
            ),
            metrics=Metrics(prompt_tokens=1200, completion_tokens=80, cached_tokens=1000, cost_usd=0.0123),
        ),
    ]
    subagents = None
    if with_subagent:
        sub = Trajectory(
            schema_version="ATIF-v1.7",
            session_id=f"{session}-sub",
            trajectory_id="explore-1",
            agent=Agent(name="explore", version="1.0", model_name="claude-haiku-4-5"),
            steps=[
                Step(step_id=1, timestamp=_iso(base + 2.1), source="user", message="Find usages of f"),
                Step(
                    step_id=2,
                    timestamp=_iso(base + 2.2),
                    source="agent",
                    message="f is used in main.py",
                    metrics=Metrics(prompt_tokens=300, completion_tokens=20, cost_usd=0.001),
                ),
            ],
            final_metrics=FinalMetrics(
                total_prompt_tokens=300, total_completion_tokens=20, total_cost_usd=0.001, total_steps=2
            ),
        )
        subagents = [sub]
        steps.append(
            Step(
                step_id=4,
                timestamp=_iso(base + 2),
                source="agent",
                model_name="claude-sonnet-4-5",
                message="",
                tool_calls=[
                    ToolCall(tool_call_id="toolu_03", function_name="Task", arguments={"prompt": "Find usages of f"})
                ],
                observation=Observation(
                    results=[
                        ObservationResult(
                            source_call_id="toolu_03",
                            content="f is used in main.py",
                            subagent_trajectory_ref=[SubagentTrajectoryRef(trajectory_id="explore-1")],
                        )
                    ]
                ),
                metrics=Metrics(prompt_tokens=1500, completion_tokens=40, cached_tokens=1200, cost_usd=0.004),
            )
        )
    steps.append(
        Step(
            step_id=len(steps) + 1,
            timestamp=_iso(base + 3),
            source="agent",
            model_name="claude-sonnet-4-5",
            message="Fixed: f now returns x + 1.",
            tool_calls=[
                ToolCall(
                    tool_call_id="toolu_04",
                    function_name="Edit",
                    arguments={"file_path": "/app/app.py", "old_string": "x + 2", "new_string": "x + 1"},
                )
            ],
            observation=Observation(results=[ObservationResult(source_call_id="toolu_04", content="ok")]),
            metrics=Metrics(prompt_tokens=1400, completion_tokens=60, cached_tokens=1300, cost_usd=0.005),
        )
    )
    return Trajectory(
        schema_version="ATIF-v1.6",
        session_id=session,
        agent=Agent(name="claude-code", version="2.1.332", model_name="claude-sonnet-4-5"),
        steps=steps,
        subagent_trajectories=subagents,
        final_metrics=FinalMetrics(
            total_prompt_tokens=4100, total_completion_tokens=180, total_cost_usd=0.0223, total_steps=len(steps)
        ),
    )


def job_log(name: str) -> str:
    return (
        f"2026-05-01 12:00:00,001 - harbor.job - INFO - Starting job {name} (4 trials)\n"
        "2026-05-01 12:00:00,002 - harbor.job - WARNING - ünïcode ✓ and a tab\there\r\n"
    )


def trial_log(trial: str, outcome: str) -> str:
    text = (
        f"2026-05-01 12:00:01,000 - harbor.trial - INFO - [{trial}] environment setup\n"
        f"2026-05-01 12:00:10,000 - harbor.trial - DEBUG - [{trial}] agent setup … done\n"
    )
    return text + ("still going" if outcome == "running" else f"finished: {outcome}\n")


def write_job(root: Path, name: str) -> Path:
    """Writes root/jobs/<name>/ and its task dirs under root/tasks; returns the job dir."""
    tasks = [make_task(root, "hello-world"), make_task(root, "fix-bug")]
    jobs_dir = root / "jobs"
    config = JobConfig(
        job_name=name,
        jobs_dir=jobs_dir,
        n_attempts=2,
        skip_credential_checks=True,
        agents=[AgentConfig(name="claude-code", model_name="anthropic/claude-sonnet-4-5")],
        tasks=[TaskConfig(path=t) for t in tasks],
    )
    job_id = uuid.uuid4()
    job_dir = jobs_dir / name
    job_dir.mkdir(parents=True)
    (job_dir / "config.json").write_text(config.model_dump_json(indent=4))
    (job_dir / "job.log").write_bytes(job_log(name).encode())
    trial_locks = _write_job_lock(job_dir)
    planned = JobPlan.build_trial_configs(config, [TaskConfig(path=t) for t in tasks], job_id=job_id)
    outcomes = ["solved", "timeout", "subagent", "running"]
    results = []
    for index, (trial_config, outcome) in enumerate(zip(planned, outcomes, strict=True)):
        trial_config.trial_name = f"{Path(trial_config.task.path).name}__{outcome}{index}"
        trial_dir = job_dir / trial_config.trial_name
        (trial_dir / "agent").mkdir(parents=True)
        (trial_dir / "verifier").mkdir()
        (trial_dir / "config.json").write_text(trial_config.model_dump_json(indent=4, exclude_defaults=True))
        (trial_dir / "lock.json").write_text(trial_locks[Path(trial_config.task.path).name])
        (trial_dir / "trial.log").write_bytes(trial_log(trial_config.trial_name, outcome).encode())
        base = 100.0 * index
        traj = trajectory(base + 20, with_subagent=outcome == "subagent", session=f"sess-{name}-{index}")
        (trial_dir / "agent" / "trajectory.json").write_text(__import__("json").dumps(traj.to_json_dict(), indent=2))
        if outcome == "running":
            continue
        reward = 0.0 if outcome == "timeout" else 1.0
        (trial_dir / "verifier" / "reward.txt").write_text(f"{reward}\n")
        exception = None
        if outcome == "timeout":
            exception = ExceptionInfo(
                exception_type="AgentTimeoutError",
                exception_message="Agent execution timed out after 60.0 seconds",
                exception_traceback="Traceback (most recent call last):\n  ...\nAgentTimeoutError\n",
                occurred_at=_at(base + 80),
            )
            (trial_dir / "exception.txt").write_text(exception.exception_traceback)
        result = TrialResult(
            id=uuid.uuid4(),
            task_name=Path(trial_config.task.path).name,
            trial_name=trial_config.trial_name,
            trial_uri=trial_dir.as_uri(),
            task_id=LocalTaskId(path=trial_config.task.path),
            source=None,
            task_checksum="ab" * 32,
            config=trial_config,
            agent_info=AgentInfo(
                name="claude-code",
                version="2.1.332",
                model_info=ModelInfo(name="claude-sonnet-4-5", provider="anthropic"),
            ),
            agent_result=AgentContext(
                n_input_tokens=4100 + index, n_cache_tokens=3500, n_output_tokens=180, cost_usd=0.0223 + index / 1000
            ),
            verifier_result=VerifierResult(rewards={"reward": reward}),
            exception_info=exception,
            started_at=_at(base),
            finished_at=_at(base + 95),
            environment_setup=TimingInfo(started_at=_at(base + 1), finished_at=_at(base + 10)),
            agent_setup=TimingInfo(started_at=_at(base + 10), finished_at=_at(base + 19.5)),
            agent_execution=TimingInfo(started_at=_at(base + 19.5), finished_at=_at(base + 80)),
            verifier=TimingInfo(started_at=_at(base + 81), finished_at=_at(base + 90)),
        )
        (trial_dir / "result.json").write_text(result.model_dump_json(indent=4))
        results.append(result)
    from harbor.models.job.result import JobStats

    stats = JobStats.from_trial_results(results, n_total_trials=len(planned), n_running_trials=1)
    job_result = JobResult(
        id=job_id, started_at=datetime(2026, 5, 1, 12, 0, 0), n_total_trials=len(planned), stats=stats
    )
    (job_dir / "result.json").write_text(job_result.model_dump_json(indent=4, exclude={"trial_results"}))
    return job_dir


def _write_job_lock(job_dir: Path) -> dict[str, str]:
    """The job's lock.json, built and written by Harbor's own Job as `harbor run` does at run start
    (before any trial directory exists: resuming would remove unfinished ones); returns each task's
    trial lock.json text (a trial's lock is its entry of the job's)."""
    import asyncio

    from harbor.job import Job

    config = JobConfig.model_validate_json((job_dir / "config.json").read_text())
    config.jobs_dir, config.job_name = job_dir.parent, job_dir.name
    job = asyncio.run(Job.create(config))
    job._write_job_lock()
    return {lock.task.name: lock.model_dump_json(indent=4, exclude_none=True) for lock in job._job_lock.trials}


def import_job(capsys, server, root: Path, job: str, trial_prefix: str):
    """The fixture job written under root and imported with `harborlight import harbor`; the directory of its
    trial whose name starts with `trial_prefix`, and that trial's trajectory as Harbor's own model reads it."""
    source = write_job(root, job)
    code, _, err = run(capsys, "import", "harbor", str(source), "--server", server.http_url)
    assert code == 0, err
    trial_dir = next(p for p in source.iterdir() if p.name.startswith(trial_prefix))
    return trial_dir, Trajectory.model_validate_json((trial_dir / "agent" / "trajectory.json").read_text())
