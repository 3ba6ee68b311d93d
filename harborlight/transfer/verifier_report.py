"""A SWE-bench verifier's report.json, as the harbor.verifier.* attributes of the trial's verifier span.

Harbor's SWE-bench tasks grade with SWE-bench's own harness and write its report to
/logs/verifier/report.json, which lands in the trial's verifier/ directory: one entry per instance,
`{"patch_is_None", "patch_exists", "patch_successfully_applied", "resolved", "tests_status":
{"FAIL_TO_PASS": {"success": [...], "failure": [...]}, "PASS_TO_PASS": {...}, ...}}`
(swebench.harness.grading.get_eval_tests_report). The store reads these attributes back as the trial's
verifier report (harborlight/read/statements/trial_rows_sql.py, REPORT_PREFIX): the patch outcomes, f2p / p2p,
`is_regression`, `n_regressions` and a nop control's `task_broken`.
"""

from typing import Any

PREFIX = "harbor.verifier."
_FLAGS = (("resolved", "resolved"), ("patch_exists", "patch_exists"), ("patch_applied", "patch_successfully_applied"))
_TESTS = (("f2p", "FAIL_TO_PASS"), ("p2p", "PASS_TO_PASS"))


def report_attributes(report: Any) -> dict[str, bool | int]:
    """The attributes of a report.json holding one instance's entry; {} for anything else."""
    if not isinstance(report, dict) or len(report) != 1:
        return {}
    (entry,) = report.values()
    if not isinstance(entry, dict):
        return {}
    values: dict[str, bool | int] = {
        f"{PREFIX}{name}": entry[key] for name, key in _FLAGS if isinstance(entry.get(key), bool)
    }
    status = entry.get("tests_status")
    for name, key in _TESTS:
        tests = status.get(key) if isinstance(status, dict) else None
        if isinstance(tests, dict):
            for outcome, suffix in (("success", "pass"), ("failure", "fail")):
                if isinstance(tests.get(outcome), list):
                    values[f"{PREFIX}{name}_{suffix}"] = len(tests[outcome])
    return values
