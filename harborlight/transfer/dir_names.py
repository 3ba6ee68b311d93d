"""Directory names of an exported job (pure): the job's must be one as given, a trial's is made one.

A trial is written to the directory of its name, unless the name cannot be one beside the job's own
files (`config.json`, `result.json`, `job.log`, `lock.json`, hidden names, a separator, a control
character, over 255 bytes): then to `<its name made safe and cut>__<16 hex of its SHA-256>`. Harbor
itself names trials `<task, cut to 32>__<7 characters>`, so its own directories are always their names.
"""

import hashlib

from harborlight.transfer.errors import TransferError

JOB_FILES = ("config.json", "result.json", "job.log", "lock.json")
TRIAL_NAMES = ".harborlight-trial-names.json"  # {directory: trial name} for the trials written under another name
# A file name holds at most 255 bytes; the export's staging directory adds 10 to the job's name.
_JOB_NAME_BYTES = 240
_KEPT_BYTES = 200


def safe_name(name: str, what: str) -> str:
    if not name or name in (".", "..") or name.startswith(".") or "/" in name or "\\" in name or "\0" in name:
        raise TransferError(f"the {what} name {name!r} cannot be a directory name")
    if len(name.encode()) > _JOB_NAME_BYTES:
        raise TransferError(
            f"the {what} name is {len(name.encode())} bytes long: a directory name holds at most {_JOB_NAME_BYTES} here"
        )
    return name


def _plain(name: str) -> bool:
    return (
        bool(name)
        and name not in (".", "..")
        and not name.startswith(".")
        and name.isprintable()
        and "/" not in name
        and "\\" not in name
        and name.casefold() not in JOB_FILES
        and len(name.encode()) <= 255
    )


def trial_directory(name: str) -> str:
    """The directory a trial named `name` is written to (the name itself when it can be one; see above)."""
    if _plain(name):
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    cleaned = "".join(c if c.isprintable() and c not in "/\\" else "_" for c in name).lstrip(".")
    kept = cleaned.encode("utf-8", "replace")[:_KEPT_BYTES].decode("utf-8", "ignore") or "trial"
    return f"{kept}__{digest}"
