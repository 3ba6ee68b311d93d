"""A SWE-bench verifier's report.json read from a Harbor job directory (`harborlight import harbor`): the
trial rows' patch detail and PASS_TO_PASS counts, `is_regression`, the job's `n_regressions` and a `nop`
control's `task_broken`. The report is written as Harbor's SWE-bench verifier writes it to
/logs/verifier/report.json: SWE-bench's own get_eval_tests_report under the instance id, beside
Harbor's TrialResult models (tests/importers/harbor_job.py)."""

import json
import re
import shutil
from pathlib import Path

import httpx
from harbor.models.trial.result import TrialResult

from tests.importers.cli import run
from tests.importers.harbor_job import write_job


def swe_bench_report(instance: str, resolved: bool, p2p_broken: int) -> dict:
    tests = {
        "FAIL_TO_PASS": {
            "success": ["tests/test_app.py::test_f"] if resolved else [],
            "failure": [] if resolved else ["tests/test_app.py::test_f"],
        },
        "PASS_TO_PASS": {
            "success": ["tests/test_app.py::test_g", "tests/test_app.py::test_h"][p2p_broken:],
            "failure": ["tests/test_app.py::test_g", "tests/test_app.py::test_h"][:p2p_broken],
        },
        "FAIL_TO_FAIL": {"success": [], "failure": []},
        "PASS_TO_FAIL": {"success": [], "failure": []},
    }
    return {
        instance: {
            "patch_is_None": False,
            "patch_exists": True,
            "patch_successfully_applied": True,
            "resolved": resolved,
            "tests_status": tests,
        }
    }


def _finished(job_dir: Path) -> list[tuple[Path, TrialResult]]:
    return [(p.parent, TrialResult.model_validate_json(p.read_text())) for p in sorted(job_dir.glob("*/result.json"))]


def _import(capsys, server, source: Path) -> None:
    code, _, err = run(capsys, "import", "harbor", str(source), "--server", server.http_url)
    assert code == 0, err


def _rows(server, job: str) -> dict[str, dict]:
    items = httpx.get(f"{server.http_url}/api/jobs/{job}/trials", timeout=120).json()["items"]
    return {r["trial"]: r for r in items}


def test_a_swe_bench_report_gives_patch_outcomes_and_regressions(server, unique, tmp_path, capsys):
    job = f"swe-{unique}"
    source = write_job(tmp_path / "src", job)
    broken = {}
    for trial_dir, result in _finished(source):
        resolved = result.verifier_result.rewards["reward"] == 1.0
        broken[trial_dir.name] = 0 if resolved else 1  # the failing attempt also broke a passing test
        report = swe_bench_report(f"example__{result.task_name}-1", resolved, broken[trial_dir.name])
        (trial_dir / "verifier" / "report.json").write_text(json.dumps(report, indent=4))
    _import(capsys, server, source)
    rows = _rows(server, job)
    for trial, n in broken.items():
        row = rows[trial]
        assert (row["p2p_pass"]["value"], row["p2p_fail"]["value"]) == (2 - n, n)
        assert row["is_regression"]["value"] is bool(n)
        assert (row["patch_exists"]["value"], row["patch_applied"]["value"]) == (True, True)
        assert row["outcome"]["value"] in (("patch_failed_tests", "agent_error") if n else ("resolved",))
    row = httpx.get(f"{server.http_url}/api/jobs/{job}", timeout=120).json()
    assert row["n_regressions"] == {"value": 1, "provenance": "derived", "note": None}
    code, out, err = run(capsys, "report", job, "--server", server.http_url)
    assert code == 0, err
    assert re.search(r"regressions \(PASS_TO_PASS broken\)\W+1\W", out), out


def test_a_nop_control_whose_passing_tests_fail_marks_its_task_broken(server, unique, tmp_path, capsys):
    job = f"nop-{unique}"
    source = write_job(tmp_path / "src", job)
    for running in {p.parent for p in source.glob("*/config.json")} - {p.parent for p in source.glob("*/result.json")}:
        shutil.rmtree(running)  # the control run is over
    for trial_dir, result in _finished(source):
        result.agent_info.name, result.agent_result = "nop", None  # nop: no agent run, no trajectory
        (trial_dir / "result.json").write_text(result.model_dump_json(indent=4))
        (trial_dir / "agent" / "trajectory.json").unlink()
        broken = 1 if result.task_name == "fix-bug" else 0
        report = swe_bench_report(f"example__{result.task_name}-1", False, broken)
        (trial_dir / "verifier" / "report.json").write_text(json.dumps(report, indent=4))
    _import(capsys, server, source)
    row = httpx.get(f"{server.http_url}/api/jobs/{job}", timeout=120).json()
    assert row["is_control"]["value"] is True
    assert row["task_broken"] == {
        "value": {"fix-bug": True, "hello-world": False},
        "provenance": "derived",
        "note": None,
    }
    code, out, err = run(capsys, "report", job, "--server", server.http_url)
    assert code == 0 and "fix-bug: yes, hello-world: no" in out, err
