"""The tour's Harbor jobs (examples/harbor-jobs) name no absolute path of the clone that made them: a task, the
jobs and trials directories, a trial's URI and a traceback's files read relative to the repository's root;
and a copy of a job, imported from another directory, answers as the tour shows it."""

import json
import re
import shutil
import uuid

import httpx

from harborlight.cli.main import main
from tests.support.paths import REPO

JOBS = REPO / "examples" / "harbor-jobs"
# an absolute path (or file URI) into the repository's examples, as `harbor run` writes them
ABSOLUTE = re.compile(r"(?:file://)?/[^\s\"']*/examples/harbor-")


def test_no_file_names_an_absolute_path_of_the_clone():
    files = [p for p in JOBS.rglob("*") if p.is_file()]
    assert len(files) > 300
    found = [f"{p.relative_to(REPO)}: {m.group()}" for p in files if (m := ABSOLUTE.search(p.read_text()))]
    assert found == []
    config = json.loads((JOBS / "tour-careful" / "config.json").read_text())
    assert config["jobs_dir"] == "examples/harbor-jobs"
    assert {t["path"] for t in config["tasks"]} == {
        f"examples/harbor-tour/tasks/{t.name}" for t in (REPO / "examples" / "harbor-tour" / "tasks").iterdir()
    }
    trial = json.loads(next((JOBS / "tour-careful").glob("*/result.json")).read_text())
    assert trial["trial_uri"] == f"examples/harbor-jobs/tour-careful/{trial['trial_name']}"


def test_a_copy_imported_from_another_directory_answers_as_in_the_tour(server, tmp_path, monkeypatch):
    job = tmp_path / "elsewhere" / f"tour-careful-{uuid.uuid4().hex[:8]}"
    shutil.copytree(JOBS / "tour-careful", job)
    monkeypatch.chdir(tmp_path)
    assert main(["import", "harbor", str(job), "--server", server.http_url]) == 0
    server.caught_up()
    row = httpx.get(f"{server.http_url}/api/jobs/{job.name}", timeout=120).json()
    assert row["n_trials"]["value"] == 20
    assert row["raw_solve_rate"]["value"] == 0.9
