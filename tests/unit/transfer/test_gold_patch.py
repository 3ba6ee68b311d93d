"""The gold patch is found where Harbor keeps the trial's task: a local task's directory, or a git task's
copy in Harbor's task cache (located by Harbor's own GitTaskId); the instance record is SWE-bench's, as
Harbor's SWE-bench adapter writes it to tests/config.json."""

import json

import harbor.models.task.id as task_ids
from harbor.models.task.id import GitTaskId

from harborlight.transfer.gold_patch import gold_patch

PATCH = "diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-x = 2\n+x = 1\n"


def _write_instance(task_dir) -> None:
    (task_dir / "tests").mkdir(parents=True)
    (task_dir / "tests" / "config.json").write_text(json.dumps({"instance_id": "example__app-1", "patch": PATCH}))


def test_a_local_task_gives_its_gold_patch(tmp_path):
    _write_instance(tmp_path / "app-1")
    assert gold_patch({"task": {"path": str(tmp_path / "app-1")}}) == PATCH


def test_a_git_task_is_read_from_harbors_task_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(task_ids, "TASK_CACHE_DIR", tmp_path / "cache")
    task = {
        "git_url": "https://github.com/example/datasets.git",
        "git_commit_id": "abc123",
        "path": "swebench-verified/app-1",
    }
    _write_instance(GitTaskId(**task).get_local_path())
    assert gold_patch({"task": task}) == PATCH


def test_a_task_without_an_instance_record_or_not_here_has_none(tmp_path):
    (tmp_path / "plain").mkdir()
    assert gold_patch({"task": {"path": str(tmp_path / "plain")}}) is None
    assert gold_patch({"task": {"path": str(tmp_path / "gone")}}) is None
    assert gold_patch({"task": {"name": "harbor/hello-world"}}) is None  # a registry task not resolved to a digest
    assert gold_patch({}) is None
