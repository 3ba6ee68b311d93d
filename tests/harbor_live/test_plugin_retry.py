"""A trial Harbor retried (its RetryConfig: the agent crashed on the first run, the second solved it)
is streamed by the plugin run by run; the job directory keeps the last run only. A retry is no
observation of its own (the field guide: `n_retries` are the harness's retries, repeated attempts are
separate trials; AgentCompass: retry executions do not add metric observations), so the streamed job
must read as the directory does: one trial, solved, without the first run's exception.
A real Harbor Job (its queue retries the trial) with the host environment and the scripted agent."""

import asyncio
import subprocess
import sys

import httpx
from harbor.cli.job_plugins import PluginConfig
from harbor.models.job.config import JobConfig, RetryConfig
from harbor.models.job.result import JobResult
from harbor.models.trial.config import AgentConfig, EnvironmentConfig, TaskConfig
from harbor.models.trial.result import TrialResult

from tests.harbor_live.harbor_run import make_task, run_job
from tests.harbor_live.host_environment import HostEnvironment
from tests.harbor_live.scripted_agent import ScriptedAgent
from tests.importers.exported import validate_job
from tests.support.servers import SubprocessServer

PLUGIN = "harborlight.harbor.plugin:HarborlightPlugin"


def _rows(server, job: str) -> tuple[dict, list[dict]]:
    base = f"{server.http_url}/api/jobs/{job}"
    return httpx.get(base, timeout=60).json(), httpx.get(f"{base}/trials", timeout=60).json()["items"]


def test_a_retried_trial_streams_as_its_directory_reads(server, tmp_path, unique):
    job = f"retried-{unique}"
    marker = tmp_path / "failed-once"
    task = make_task(tmp_path, "flaky", f"Write the answer, but fail once at {marker}")
    config = JobConfig(
        job_name=job,
        jobs_dir=tmp_path / "jobs",
        n_attempts=1,
        quiet=True,
        skip_credential_checks=True,
        retry=RetryConfig(max_retries=1, min_wait_sec=0.0, max_wait_sec=0.0),
        agents=[
            AgentConfig(import_path=f"{ScriptedAgent.__module__}:ScriptedAgent", model_name="scripted/scripted-model-1")
        ],
        environment=EnvironmentConfig(import_path=f"{HostEnvironment.__module__}:HostEnvironment"),
        tasks=[TaskConfig(path=task)],
    )
    job_object, result = asyncio.run(
        run_job(config, [PluginConfig(import_path=PLUGIN, kwargs={"endpoint": server.http_url})])
    )
    assert marker.exists() and (result.stats.n_retries, result.stats.n_errored_trials) == (1, 0)  # retried, solved
    server.caught_up()
    live, live_trials = _rows(server, job)
    fresh = tmp_path / "fresh"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "harborlight.cli.main",
            "import",
            "harbor",
            str(job_object.job_dir),
            "--data-dir",
            str(fresh),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    other = SubprocessServer(fresh).start()
    try:
        imported, imported_trials = _rows(other, job)
    finally:
        other.stop()
    assert imported["n_trials"]["value"] == 1 and imported["raw_solve_rate"]["value"] == 1.0
    (trial,) = live_trials
    assert trial["exception_type"]["value"] is None and trial["outcome"]["value"] == "resolved"
    assert live_trials == imported_trials
    assert live == imported
    # Exported from the live store, the job is what Harbor wrote: its trial the last run, Harbor's stats.
    out = tmp_path / "exported"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "harborlight.cli.main",
            "export-job",
            job,
            "--out",
            str(out),
            "--server",
            server.http_url,
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    (exported,) = validate_job(out / job).values()
    (harbors,) = [TrialResult.model_validate_json(p.read_text()) for p in job_object.job_dir.glob("*/result.json")]
    assert exported.exception_info is None and exported.verifier_result.rewards == harbors.verifier_result.rewards
    assert exported.started_at == harbors.started_at and exported.finished_at == harbors.finished_at
    stats = JobResult.model_validate_json((out / job / "result.json").read_text()).stats
    assert (stats.n_errored_trials, stats.evals.keys()) == (result.stats.n_errored_trials, result.stats.evals.keys())
