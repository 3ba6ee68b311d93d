"""localization on GET /api/trials/{trial}/behavior for a Harbor job directory imported with
`harborlight import harbor`: its tasks are SWE-bench-shaped (the instance record in tests/config.json,
as Harbor's SWE-bench adapter writes it, its `patch` in git's diff format), the agent's edits are
its trajectory's tool calls (Harbor's own ATIF models, tests/importers/harbor_job.py)."""

import json

import httpx

from tests.importers.cli import run
from tests.importers.harbor_job import write_job

# The dataset's instance record as SWE-bench publishes it (FAIL_TO_PASS / PASS_TO_PASS are JSON strings).
INSTANCE = {
    "repo": "example/fix-bug",
    "instance_id": "example__fix-bug-1",
    "base_commit": "0" * 40,
    "patch": (
        "diff --git a/app.py b/app.py\nindex 1111111..2222222 100644\n--- a/app.py\n+++ b/app.py\n"
        "@@ -1,2 +1,2 @@\n def f(x):\n-    return x + 2\n+    return x + 1\n"
        "diff --git a/lib/util.py b/lib/util.py\nindex 3333333..4444444 100644\n--- a/lib/util.py\n"
        "+++ b/lib/util.py\n@@ -1 +1 @@\n-STEP = 2\n+STEP = 1\n"
    ),
    "test_patch": "",
    "problem_statement": "f is off by one",
    "version": "1.0",
    "FAIL_TO_PASS": json.dumps(["tests/test_app.py::test_f"]),
    "PASS_TO_PASS": json.dumps([]),
}


def test_an_imported_swe_bench_trial_compares_its_edits_with_the_gold_patch(server, unique, tmp_path, capsys):
    job = f"loc-{unique}"
    source = write_job(tmp_path / "src", job)
    (tmp_path / "src" / "tasks" / "fix-bug" / "tests" / "config.json").write_text(json.dumps(INSTANCE))
    code, _, err = run(capsys, "import", "harbor", str(source), "--server", server.http_url)
    assert code == 0, err
    trials = httpx.get(f"{server.http_url}/api/jobs/{job}/trials", timeout=120).json()["items"]
    by_task = {}
    for t in trials:
        if not t["is_running"]:
            by_task.setdefault(t["task"], t["trial"])
    # the job named: the fixture's trial names repeat in every job a worker's store holds
    fixed = httpx.get(
        f"{server.http_url}/api/trials/{by_task['fix-bug']}/behavior", params={"job": job}, timeout=120
    ).json()
    # the agent edited /app/app.py (the task's workspace root /app/): the patch's app.py, never lib/util.py
    assert fixed["localization"] == {
        "value": {"hit": ["app.py"], "missed": ["lib/util.py"], "extra": []},
        "provenance": "inferred",
        "note": None,
    }
    plain = httpx.get(
        f"{server.http_url}/api/trials/{by_task['hello-world']}/behavior", params={"job": job}, timeout=120
    ).json()
    assert plain["localization"]["value"] is None and "no gold patch recorded" in plain["localization"]["note"]
