"""Checks on an exported job directory with Harbor's and atif's own models, and loading it the way
`harbor view` (its JobScanner) and `harbor job resume` (Job.create on the existing directory) do."""

import asyncio
import json
from pathlib import Path

import atif
from harbor.models.job.config import JobConfig
from harbor.models.job.result import JobResult
from harbor.models.trajectories import Trajectory as HarborTrajectory
from harbor.models.trial.config import TrialConfig
from harbor.models.trial.result import TrialResult
from harbor.utils.trajectory_validator import TrajectoryValidator
from harbor.viewer.scanner import JobScanner


def validate_job(job_dir: Path) -> dict[str, TrialResult]:
    """Every file validates with Harbor's models (and trajectories with atif's); returns the results."""
    JobConfig.model_validate_json((job_dir / "config.json").read_text())
    JobResult.model_validate_json((job_dir / "result.json").read_text())
    assert (job_dir / "job.log").is_file()
    results = {}
    for trial_dir in sorted(p for p in job_dir.iterdir() if p.is_dir()):
        config = TrialConfig.model_validate_json((trial_dir / "config.json").read_text())
        assert config.trial_name == trial_dir.name
        assert (trial_dir / "trial.log").is_file() and (trial_dir / "trace.json").is_file()
        trajectory_path = trial_dir / "agent" / "trajectory.json"
        if trajectory_path.exists():
            document = json.loads(trajectory_path.read_text())
            HarborTrajectory.model_validate(document)
            atif.Trajectory.model_validate(document)
            assert TrajectoryValidator().validate(document), trajectory_path
        if (trial_dir / "result.json").exists():
            result = TrialResult.model_validate_json((trial_dir / "result.json").read_text())
            assert result.trial_name == trial_dir.name and str(result.config.job_id) == str(
                JobResult.model_validate_json((job_dir / "result.json").read_text()).id
            )
            if result.exception_info is not None:
                assert (trial_dir / "exception.txt").is_file()
            if result.verifier_result and result.verifier_result.rewards:
                assert (
                    json.loads((trial_dir / "verifier" / "reward.json").read_text()) == result.verifier_result.rewards
                )
            results[trial_dir.name] = result
    return results


def view(jobs_root: Path, job: str) -> JobScanner:
    """What `harbor view JOBS_ROOT` reads; the scanner swallows parse errors, so None means it failed."""
    scanner = JobScanner(jobs_root)
    assert job in scanner.list_jobs()
    assert scanner.get_job_config(job) is not None and scanner.get_job_result(job) is not None
    for trial in scanner.list_trials(job):
        assert scanner.get_trial_config(job, trial) is not None
        if (jobs_root / job / trial / "result.json").exists():
            assert scanner.get_trial_result(job, trial) is not None
    return scanner


def resume_plan(job_dir: Path):
    """`harbor job resume -p JOB_DIR` up to running trials: the config must match and every finished
    trial must match a planned one. Returns the Job (its remaining trials are what resume would run)."""
    from harbor.job import Job

    config = JobConfig.model_validate_json((job_dir / "config.json").read_text())
    config.jobs_dir, config.job_name = job_dir.parent, job_dir.name
    return asyncio.run(Job.create(config))
