"""A Harbor job directory imported and exported again keeps every trial's steps, tool calls and their
ids, observations, token counts, cost, rewards, exception type and phase timings; a trial still
running stays running; job.log, trial.log and lock.json come back byte for byte; the export loads with
Harbor's models, its viewer and its resume logic (lock check included)."""

import json

import httpx
from harbor.metrics.mean import Mean
from harbor.models.job.result import JobResult, JobStats
from harbor.models.trajectories import Trajectory
from harbor.models.trial.config import TrialConfig
from harbor.models.trial.result import TrialResult
from harbor.utils.pass_at_k import compute_pass_at_k_by_evals

from tests.importers.cli import run
from tests.importers.exported import resume_plan, validate_job, view
from tests.importers.harbor_job import write_job

STEP_FIELDS = (
    "step_id",
    "timestamp",
    "source",
    "message",
    "model_name",
    "reasoning_content",
    "tool_calls",
    "observation",
    "metrics",
)


def _trajectory(trial_dir) -> Trajectory:
    return Trajectory.model_validate_json((trial_dir / "agent" / "trajectory.json").read_text())


def test_harbor_job_round_trips_field_by_field(server, unique, tmp_path, capsys):
    job = f"rt-{unique}"
    source = write_job(tmp_path / "src", job)
    code, out, err = run(capsys, "import", "harbor", str(source), "--server", server.http_url)
    assert code == 0, err
    assert "imported 4 trial(s) of 1 job(s)" in out and "1 of them still running" in out and "skipped" not in out

    planned = httpx.get(f"{server.http_url}/api/jobs/{job}", timeout=120).json()["n_planned"]
    assert planned == {
        "value": 4,
        "provenance": "measured",
        "note": None,
    }  # Harbor's n_total_trials, carried by the import

    out_dir = tmp_path / "out"
    code, out, err = run(capsys, "export-job", job, "--out", str(out_dir), "--server", server.http_url)
    assert code == 0, err
    exported = out_dir / job
    results = validate_job(exported)
    assert sorted(results) == sorted(p.name for p in source.iterdir() if (p / "result.json").exists())

    for name, result in results.items():
        original = TrialResult.model_validate_json((source / name / "result.json").read_text())
        for field in (
            "id",
            "task_name",
            "trial_name",
            "task_id",
            "source",
            "task_checksum",
            "agent_info",
            "agent_result",
            "verifier_result",
            "exception_info",
            "started_at",
            "finished_at",
            "environment_setup",
            "agent_setup",
            "agent_execution",
            "verifier",
        ):
            assert getattr(result, field) == getattr(original, field), (name, field)
        assert result.config.trials_dir == exported  # the new location; resume rebinds it the same way
        result.config.trials_dir = original.config.trials_dir
        assert result.config == original.config  # TrialConfig equality: task, agent, environment, verifier...
        before, after = _trajectory(source / name), _trajectory(exported / name)
        assert len(after.steps) == len(before.steps)
        for old, new in zip(before.steps, after.steps, strict=True):
            for field in STEP_FIELDS:
                assert getattr(new, field) == getattr(old, field), (name, old.step_id, field)
        assert after.final_metrics == before.final_metrics and after.agent == before.agent
        assert after.subagent_trajectories == before.subagent_trajectories
        assert (exported / name / "exception.txt").exists() == (source / name / "exception.txt").exists()

    # The running trial is exported as running: its config and trajectory so far, no result.json.
    (running,) = [p.name for p in source.iterdir() if p.is_dir() and not (p / "result.json").exists()]
    assert not (exported / running / "result.json").exists()
    config = TrialConfig.model_validate_json((exported / running / "config.json").read_text())
    original = TrialConfig.model_validate_json((source / running / "config.json").read_text())
    config.trials_dir = original.trials_dir
    assert config == original
    before, after = _trajectory(source / running), _trajectory(exported / running)
    assert [s.model_dump() for s in after.steps] == [s.model_dump() for s in before.steps]

    # Harbor's own logs and locks come back as they were.
    for name in ("job.log", "lock.json"):
        assert (exported / name).read_bytes() == (source / name).read_bytes(), name
    for trial in [*results, running]:
        for name in ("trial.log", "lock.json"):
            assert (exported / trial / name).read_bytes() == (source / trial / name).read_bytes(), (trial, name)

    # Job stats are Harbor's own computation over the same trials.
    finished = list(results.values())
    expected = JobStats.from_trial_results(finished, n_total_trials=4, n_running_trials=1)
    for key, rewards in {
        "claude-code__claude-sonnet-4-5__adhoc": [r.verifier_result.rewards for r in finished if r.reward_valid]
    }.items():
        expected.evals[key].metrics.append(Mean().compute(rewards))
    for key, value in compute_pass_at_k_by_evals(finished).items():
        expected.evals[key].pass_at_k = value
    stats = JobResult.model_validate_json((exported / "result.json").read_text()).stats
    assert stats.model_dump() == expected.model_dump()

    view(out_dir, job)
    planned = resume_plan(exported)
    assert len(planned._remaining_trial_configs) == 1  # only the trial that never finished would run
    planned._write_job_lock()  # resume's lock check: raises FileExistsError if the carried lock.json differs


def test_export_is_idempotent_and_tarball_matches(server, unique, tmp_path, capsys):
    job = f"idem-{unique}"
    run(capsys, "import", "harbor", str(write_job(tmp_path / "src", job)), "--server", server.http_url)
    out = tmp_path / "out"
    run(capsys, "export-job", job, "--out", str(out), "--server", server.http_url)
    first = {p.relative_to(out): p.read_bytes() for p in sorted((out / job).rglob("*")) if p.is_file()}
    code, _, err = run(capsys, "export-job", job, "--out", str(out), "--server", server.http_url)
    assert code == 0, err
    second = {p.relative_to(out): p.read_bytes() for p in sorted((out / job).rglob("*")) if p.is_file()}
    assert first == second

    # Importing the same directory again stores nothing twice.
    code, out_text, _ = run(
        capsys, "import", "harbor", str(tmp_path / "src" / "jobs" / job), "--server", server.http_url
    )
    assert code == 0
    assert server.sql(
        "SELECT count() FROM otel_traces WHERE ResourceAttributes['harbor.job.name'] = {j:String} "
        "AND SpanName = 'harbor.trial'",
        j=job,
    ) == [(3,)]
    assert json.loads((out / job / "result.json").read_text())["n_total_trials"] == 4
    assert server.sql(
        "SELECT count() FROM otel_logs WHERE ResourceAttributes['harbor.job.name'] = {j:String} "
        "AND ScopeName = 'harborlight.harbor_import'",
        j=job,
    ) == [(10,)]  # 4+1 logs, 4+1 locks
    assert server.sql(
        "SELECT count() FROM agent_events WHERE JobName = {j:String} AND SourceTable = 'otel_logs'", j=job
    ) == [(0,)]  # the carried logs are no agent events


def test_trials_without_logs_get_them_built_from_telemetry(server, unique, tmp_path, capsys):
    job = f"nolog-{unique}"
    source = write_job(tmp_path / "src", job)
    (source / "job.log").unlink()
    for trial_log in source.glob("*/trial.log"):
        trial_log.unlink()
    assert run(capsys, "import", "harbor", str(source), "--server", server.http_url)[0] == 0
    out = tmp_path / "out"
    assert run(capsys, "export-job", job, "--out", str(out), "--server", server.http_url)[0] == 0
    assert f"trial {running_name(source)} is running" in (out / job / "job.log").read_text()
    for trial_dir in (p for p in (out / job).iterdir() if p.is_dir()):
        assert "INFO environment_setup started" in (trial_dir / "trial.log").read_text(), trial_dir.name


def running_name(job_dir) -> str:
    (name,) = [p.name for p in job_dir.iterdir() if p.is_dir() and not (p / "result.json").exists()]
    return name
