"""A task's gold patch (its reference fix, a unified diff), read from the task directory a trial ran.

Harbor's SWE-bench adapter writes the dataset's instance record verbatim to the task's
`tests/config.json`; its `patch` field is the gold patch (the same diff `solution/solve.sh` applies).
A trial's config.json names its task (`task`: a local path, or a git or registry task that Harbor keeps
in its cache); where that directory is not on this host, no gold patch is read. The patch rides on
the trial's first phase span as `harbor.task.gold_patch`; harborlight/read/derive/localization.py compares it with
the files the agent edited.
"""

import json
import logging
from pathlib import Path
from typing import Any

from harborlight.transfer.confined_files import ConfinedDir, FileLimits
from harborlight.transfer.errors import TransferError

log = logging.getLogger(__name__)

GOLD_PATCH = "harbor.task.gold_patch"
_INSTANCE = "tests/config.json"


def task_dir(task: dict[str, Any]) -> Path | None:
    """Where the trial's task lives on this host: Harbor's own resolution when Harbor is installed (a git or
    registry task in its cache), else only a local task's `path`."""
    try:
        from harbor.models.trial.config import TaskConfig
    except ImportError:
        local = task.get("path") and not (task.get("git_url") or task.get("name"))
        return Path(task["path"]).expanduser() if local else None
    try:
        return TaskConfig.model_validate(task).get_local_path()
    except ValueError:  # not a task config, or a registry task without a resolved digest
        return None


def gold_patch(trial_config: dict[str, Any], limits: FileLimits = FileLimits()) -> str | None:
    """The gold patch of the trial's task, or None when its directory is not here or holds none. The instance
    file is read confined to the task directory (harborlight/transfer/confined_files.py): a link out of it, a FIFO or
    device, or a file over the JSON limit is refused with a warning."""
    where = task_dir(trial_config.get("task") or {})
    if where is None or not where.is_dir():
        return None
    try:
        read = ConfinedDir(where).read(_INSTANCE, limits.json_bytes, "--import-max-json-mib")
        record = json.loads(read.data) if read is not None else None
    except TransferError as exc:
        log.warning("%s", exc)
        return None
    except (ValueError, RecursionError):
        return None
    patch = record.get("patch") if isinstance(record, dict) else None
    return patch if isinstance(patch, str) and patch.strip() else None
