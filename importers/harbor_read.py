"""Reads a Harbor job directory (config.json, result.json, trial dirs, ATIF trajectories) into records.

A job dir is recognised by its `config.json` (a JSON object) and at least one trial sub-directory
holding a `config.json`. A trial without `result.json` is still running. Problems are one-line
TransferErrors naming the file.
"""

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from importers.atif import Trajectory
from importers.errors import TransferError
from importers.harbor_files import JobResult, TrialResult


@dataclass(frozen=True)
class LogFile:
    """A log file as written: its text (bytes that are not UTF-8 become U+FFFD, as OTLP log bodies
    are strings) and when it was last written."""

    text: str
    written_ns: int


@dataclass(frozen=True)
class HarborTrial:
    name: str
    config: dict[str, Any]
    result: TrialResult | None  # None: the trial was still running
    trajectory: Trajectory | None
    log_lines: tuple[str, ...]
    log: LogFile | None = None  # trial.log
    lock: LogFile | None = None  # lock.json (Harbor's resolved inputs), carried as it is
    started_ns: int | None = None  # config.json's mtime: Harbor writes it when the trial starts
    verifier_started: bool = False  # verifier/ holds a file: the agent phase is over
    verifier_report: Any = None  # verifier/report.json (a SWE-bench grading report), when the verifier wrote one


@dataclass(frozen=True)
class HarborJob:
    name: str
    path: Path
    config: dict[str, Any]
    result: JobResult | None
    trials: tuple[HarborTrial, ...]
    log_lines: tuple[str, ...]
    log: LogFile | None = None  # job.log
    lock: LogFile | None = None  # lock.json


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TransferError(f"{path}: not readable JSON ({_brief(exc)})") from None


def _brief(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"])
        return f"{exc.error_count()} problem(s), first: {where}: {error['msg']}"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _model(model, path: Path):
    try:
        return model.model_validate(_json(path))
    except ValidationError as exc:
        raise TransferError(f"{path}: not a valid Harbor {model.__name__} ({_brief(exc)})") from None


def _log(path: Path) -> LogFile | None:
    try:
        return LogFile(path.read_bytes().decode("utf-8", errors="replace"), path.stat().st_mtime_ns)
    except (FileNotFoundError, IsADirectoryError):
        return None


def _lines(log: LogFile | None) -> tuple[str, ...]:
    return tuple(log.text.splitlines()) if log is not None else ()


def read_trial(path: Path) -> HarborTrial:
    config = _json(path / "config.json")
    if not isinstance(config, dict):
        raise TransferError(f"{path / 'config.json'}: not a Harbor TrialConfig (expected a JSON object)")
    result = _model(TrialResult, path / "result.json") if (path / "result.json").exists() else None
    trajectory_path = path / "agent" / "trajectory.json"
    trajectory = _model(Trajectory, trajectory_path) if trajectory_path.exists() else None
    log = _log(path / "trial.log")
    verifier = path / "verifier"
    return HarborTrial(path.name, config, result, trajectory, _lines(log), log, _log(path / "lock.json"),
                       started_ns=(path / "config.json").stat().st_mtime_ns,
                       verifier_started=verifier.is_dir() and any(p.is_file() for p in verifier.rglob("*")),
                       verifier_report=_json(verifier / "report.json") if (verifier / "report.json").is_file() else None)


def read_job_head(path: Path) -> tuple[dict[str, Any], JobResult | None]:
    """A job's config.json and result.json (None while Harbor has not written it), not its trials."""
    if not path.is_dir():
        raise TransferError(f"{path}: no such directory")
    config_path = path / "config.json"
    if not config_path.is_file():
        raise TransferError(f"{path}: not a Harbor job directory (no config.json)")
    config = _json(config_path)
    if not isinstance(config, dict):
        raise TransferError(f"{config_path}: not a Harbor JobConfig (expected a JSON object)")
    return config, _model(JobResult, path / "result.json") if (path / "result.json").exists() else None


def read_job(path: Path) -> HarborJob:
    config, result = read_job_head(path)
    trial_dirs = sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith(".")
                        and (p / "config.json").is_file())
    if not trial_dirs:
        raise TransferError(f"{path}: not a Harbor job directory (no trial directories with a config.json)")
    trials = tuple(read_trial(p) for p in trial_dirs)
    log = _log(path / "job.log")
    return HarborJob(path.name, path, config, result, trials, _lines(log), log, _log(path / "lock.json"))
