"""Makes the tour's two Harbor jobs again with a real `harbor run` (the repository's root as the working
directory): the tasks here, the tour agent's two scripts, the tests' host environment (each trial runs on
this machine in a directory of its own; no container), two attempts per task, one retry per trial; a run takes
about a minute.

    .venv/bin/python examples/harbor-tour/make_jobs.py     # rewrites examples/harbor-jobs/

Harbor runs a job on absolute paths (its host environment's verifier does not find a relative trial directory)
and writes them into the job's files: the tasks', the jobs and trials directories, a trial's URI, a traceback's
files. Once a job is written, every such path is made relative to the repository's root, so the files read the
same from any clone and any working directory. Harbor names each trial afresh on every run: the README's tour
names one of them (`harborlight trial fetch-docs__...`).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
JOBS = ROOT / "examples" / "harbor-jobs"
TASKS = sorted(p.name for p in (HERE / "tasks").iterdir())
RUNS = {"tour-hasty": "scripted/hasty-1", "tour-careful": "scripted/careful-1"}


def config(job: str, model: str) -> dict:
    return {
        "job_name": job,
        "jobs_dir": str(JOBS),
        "n_attempts": 2,
        "n_concurrent_trials": 1,
        "quiet": True,
        "skip_credential_checks": True,
        "retry": {"max_retries": 1, "min_wait_sec": 0.0, "max_wait_sec": 0.0},
        "agents": [{"import_path": "tour_agent:TourAgent", "model_name": model}],
        "environment": {"import_path": "tests.harbor_live.host_environment:HostEnvironment"},
        "tasks": [{"path": str(HERE / "tasks" / t)} for t in TASKS],
    }


def portable(job_dir: Path) -> None:
    """Every absolute path of this clone in the job's text files, relative to the repository's root
    (`file:///.../examples/...` becomes `examples/...`)."""
    for path in job_dir.rglob("*"):
        if path.is_file() and path.suffix in {".json", ".txt", ".log"}:
            text = path.read_text()
            relative = text.replace(f"file://{ROOT}/", "").replace(f"{ROOT}/", "")
            if relative != text:
                path.write_text(relative)


def main() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), str(ROOT)]), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    shutil.rmtree(JOBS / ".tour-state", ignore_errors=True)
    with tempfile.TemporaryDirectory() as scratch:
        for job, model in RUNS.items():
            shutil.rmtree(JOBS / job, ignore_errors=True)
            path = Path(scratch) / f"{job}.json"
            path.write_text(json.dumps(config(job, model)))
            subprocess.run(
                [str(Path(sys.executable).with_name("harbor")), "run", "-c", str(path), "-y", "-q"],
                cwd=ROOT,
                env=env,
                check=True,
            )
            portable(JOBS / job)
    shutil.rmtree(JOBS / ".tour-state", ignore_errors=True)


if __name__ == "__main__":
    main()
