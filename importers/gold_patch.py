"""A task's gold patch (its reference fix, a unified diff), read from the task directory a trial ran.

Harbor's SWE-bench adapter writes the dataset's instance record verbatim to the task's
`tests/config.json`; its `patch` field is the gold patch (the same diff `solution/solve.sh` applies).
A trial's config.json names its task by `task.path`; a task fetched from git or a registry lives in
Harbor's cache instead, which this host may not have: no gold patch is read for it. The patch rides on
the trial's first phase span as `harbor.task.gold_patch`; query/derive/localization.py compares it with
the files the agent edited.
"""

import json
from pathlib import Path
from typing import Any

GOLD_PATCH = "harbor.task.gold_patch"
_INSTANCE = Path("tests") / "config.json"


def gold_patch(trial_config: dict[str, Any]) -> str | None:
    """The gold patch of the trial's task, or None when the task is not a local directory holding one."""
    task = trial_config.get("task") or {}
    if not task.get("path") or task.get("git_url") or task.get("name"):
        return None
    try:
        record = json.loads((Path(task["path"]).expanduser() / _INSTANCE).read_text())
    except (OSError, ValueError):
        return None
    patch = record.get("patch") if isinstance(record, dict) else None
    return patch if isinstance(patch, str) and patch.strip() else None
