"""`harbor run --plugin harborlight` as a user types it: Harbor's CLI finds the plugin by the
installed entry point, builds it from --plugin-kwarg, and the trial lands in harborlight as it runs
(one task on the host environment, the scripted agent)."""

import os
import subprocess
import sys
from pathlib import Path

import httpx

from tests.harbor_live.harbor_run import make_task
from tests.harbor_live.host_environment import HostEnvironment
from tests.harbor_live.scripted_agent import ScriptedAgent


def harbor_env() -> dict[str, str]:
    """Harbor imports the agent and environment by module path, so the repository root goes on its
    PYTHONPATH (pytest puts it on sys.path for itself only)."""
    root = str(Path(__file__).resolve().parents[2])
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PYTHONPATH": path, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def test_harbor_run_streams_the_job_through_the_installed_plugin(server, tmp_path, unique):
    job = f"cli-{unique}"
    task = make_task(tmp_path, "solve-it", "Write the answer.")
    done = subprocess.run(
        [
            str(Path(sys.executable).with_name("harbor")),
            "run",
            "-p",
            str(task),
            "-o",
            str(tmp_path / "jobs"),
            "--job-name",
            job,
            "-a",
            f"{ScriptedAgent.__module__}:ScriptedAgent",
            "-m",
            "scripted/scripted-model-1",
            "-e",
            f"{HostEnvironment.__module__}:HostEnvironment",
            "--plugin",
            "harborlight",
            "--plugin-kwarg",
            f"endpoint={server.http_url}",
            "-q",
            "-y",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=harbor_env(),
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    row = httpx.get(f"{server.http_url}/api/jobs/{job}", timeout=60)
    assert row.status_code == 200, row.text
    assert (row.json()["n_trials"]["value"], row.json()["raw_solve_rate"]["value"]) == (1, 1.0)
