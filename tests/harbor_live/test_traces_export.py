"""Harbor's own exporter against harborlight: `harbor traces export --format otel --endpoint URL
JOBDIR` (Harbor's CLI as installed, its harbor-atif2otel MLflow uploader) finds or creates its MLflow
experiment, then posts each trial's OTLP under it; the experiment names the job."""

import os
import subprocess
import sys
from pathlib import Path

import httpx

from tests.importers.cli import run
from tests.importers.harbor_job import write_job


def _harbor(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    harbor = Path(sys.executable).with_name("harbor")
    return subprocess.run(
        [str(harbor), *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", **env},
    )


def test_harbor_traces_export_lands_the_jobs_trials(server, tmp_path, unique):
    job = f"mlflow-{unique}"
    job_dir = write_job(tmp_path, f"dir-{unique}")
    with_trajectory = [p.name for p in job_dir.iterdir() if (p / "agent" / "trajectory.json").is_file()]
    done = _harbor(
        "traces",
        "export",
        "--format",
        "otel",
        "--endpoint",
        server.http_url,
        "--path",
        str(job_dir),
        env={"MLFLOW_EXPERIMENT_NAME": job},
    )
    assert done.returncode == 0, done.stderr
    assert f"Exported {len(with_trajectory)} traces" in done.stdout and "errors" not in done.stdout, done.stdout
    row = httpx.get(f"{server.http_url}/api/jobs/{job}", timeout=60)
    assert row.status_code == 200, row.text
    assert row.json()["n_trials"]["value"] == len(with_trajectory)
    trials = httpx.get(f"{server.http_url}/api/jobs/{job}/trials", timeout=60).json()["items"]
    assert all(t["n_steps"]["value"] for t in trials), trials


def test_the_experiment_routes_answer_as_mlflow_does(server):
    search = httpx.post(
        f"{server.http_url}/api/2.0/mlflow/experiments/search", json={"filter": "name = 'it''s a job/1'"}, timeout=30
    )
    assert search.status_code == 200
    (experiment,) = search.json()["experiments"]
    assert experiment["name"] == "it's a job/1"
    created = httpx.post(
        f"{server.http_url}/api/2.0/mlflow/experiments/create", json={"name": "it's a job/1"}, timeout=30
    )
    assert created.json() == {"experiment_id": experiment["experiment_id"]}
    experiment["experiment_id"].encode("ascii")  # it travels in a header


def test_an_experiment_search_harborlight_cannot_answer_says_why(server):
    reply = httpx.post(
        f"{server.http_url}/api/2.0/mlflow/experiments/search", json={"filter": "tags.x = 'y'"}, timeout=30
    )
    assert reply.status_code == 400 and "name = '<job>'" in reply.json()["message"]
    nameless = httpx.post(f"{server.http_url}/api/2.0/mlflow/experiments/create", json={}, timeout=30)
    assert nameless.status_code == 400 and "name" in nameless.json()["message"]


def test_a_job_imported_and_exported_by_harbor_under_another_name_is_whole_twice(server, tmp_path, unique, capsys):
    # One job directory, read twice: `harborlight import harbor` (its trials claim the trajectories' sessions)
    # and Harbor's own `harbor traces export` under another experiment (the same sessions, no trial names).
    # Sessions name a trial within a job only, so each job keeps its trials.
    job_dir = write_job(tmp_path, f"dir-{unique}")
    code, _, err = run(capsys, "import", "harbor", str(job_dir), "--server", server.http_url)
    assert code == 0, err
    exported = f"mlflow-{unique}"
    done = _harbor(
        "traces",
        "export",
        "--format",
        "otel",
        "--endpoint",
        server.http_url,
        "--path",
        str(job_dir),
        env={"MLFLOW_EXPERIMENT_NAME": exported},
    )
    assert done.returncode == 0, done.stderr
    with_trajectory = [p.name for p in job_dir.iterdir() if (p / "agent" / "trajectory.json").is_file()]
    imported = httpx.get(f"{server.http_url}/api/jobs/{job_dir.name}", timeout=60).json()
    row = httpx.get(f"{server.http_url}/api/jobs/{exported}", timeout=60)
    assert row.status_code == 200, row.text
    assert row.json()["n_trials"]["value"] == len(with_trajectory)
    assert imported["n_trials"]["value"] == len(with_trajectory)
    for job in (job_dir.name, exported):
        trials = httpx.get(f"{server.http_url}/api/jobs/{job}/trials", timeout=60).json()["items"]
        assert {t["job"] for t in trials} == {job} and all(t["n_steps"]["value"] for t in trials), trials
