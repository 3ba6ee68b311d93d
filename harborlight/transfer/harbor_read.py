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

from harborlight.transfer.atif import Trajectory
from harborlight.transfer.confined_files import ConfinedDir, FileLimits, FileRead, Refused
from harborlight.transfer.dir_names import trial_directory
from harborlight.transfer.errors import TransferError
from harborlight.transfer.harbor_files import JobResult, TrialResult


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
    refused: tuple[str, ...] = ()  # a line for each of its files left out (harborlight/transfer/confined_files.py)


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
    refused: tuple[str, ...] = ()  # a line for each file left out, the trials' own included


class _Reader:
    """One job directory's files, read confined to it (harborlight/transfer/confined_files.py) within the limits;
    `refused` collects a line for each optional file left out."""

    def __init__(self, job_dir: Path, limits: FileLimits) -> None:
        self.dir = ConfinedDir(job_dir)
        self.limits = limits
        self.refused: list[str] = []

    def raw(self, relative: str, limit: int, setting: str) -> FileRead | None:
        return self.dir.read(relative, limit, setting)

    def json(self, relative: str, limit: int | None = None, setting: str = "--import-max-json-mib") -> Any:
        """The file's JSON, or _ABSENT; a refusal or bad JSON raises (the caller decides what it costs)."""
        read = self.raw(relative, self.limits.json_bytes if limit is None else limit, setting)
        return _ABSENT if read is None else self.parse(read, relative)

    def parse(self, read: FileRead, relative: str) -> Any:
        try:
            return json.loads(read.data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
            raise TransferError(f"{self.dir.shown / relative}: not readable JSON ({_brief(exc)})") from None

    def model(self, model, relative: str, limit: int | None = None, setting: str = "--import-max-json-mib"):
        value = self.json(relative, limit, setting)
        if value is _ABSENT:
            return None
        try:
            return model.model_validate(value)
        except ValidationError as exc:
            raise TransferError(
                f"{self.dir.shown / relative}: not a valid Harbor {model.__name__} ({_brief(exc)})"
            ) from None

    def log(self, relative: str, limit: int, setting: str) -> LogFile | None:
        """A log (or lock) file carried as it is; a refused one is left out with its line."""
        try:
            read = self.raw(relative, limit, setting)
        except Refused as exc:
            self.refused.append(str(exc))
            return None
        return LogFile(read.data.decode("utf-8", errors="replace"), read.mtime_ns) if read is not None else None

    def optional(self, read):
        """What `read()` gives, or None with its line when the file is refused."""
        try:
            return read()
        except Refused as exc:
            self.refused.append(str(exc))
            return None


_ABSENT = object()


def _brief(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"])
        return f"{exc.error_count()} problem(s), first: {where}: {error['msg']}"
    if isinstance(exc, RecursionError):
        return "nested too deep"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _lines(log: LogFile | None) -> tuple[str, ...]:
    return tuple(log.text.splitlines()) if log is not None else ()


def _read_trial(reader: _Reader, name: str) -> HarborTrial:
    """A trial of the reader's job. Its config.json or result.json refused: Refused (the trial is left out);
    its log, lock, trajectory or verifier report refused: the trial without it, the line in `refused`."""
    before = len(reader.refused)
    config_read = reader.raw(f"{name}/config.json", reader.limits.json_bytes, "--import-max-json-mib")
    if config_read is None:
        raise TransferError(f"{reader.dir.shown / name / 'config.json'}: not readable JSON (no such file)")
    config = reader.parse(config_read, f"{name}/config.json")
    if not isinstance(config, dict):
        raise TransferError(
            f"{reader.dir.shown / name / 'config.json'}: not a Harbor TrialConfig (expected a JSON object)"
        )
    result = reader.model(TrialResult, f"{name}/result.json")
    trajectory = reader.optional(
        lambda: reader.model(
            Trajectory, f"{name}/agent/trajectory.json", reader.limits.trajectory_bytes, "--import-max-trajectory-mib"
        )
    )
    log = reader.log(f"{name}/trial.log", reader.limits.log_bytes, "--import-max-log-mib")
    lock = reader.log(f"{name}/lock.json", reader.limits.json_bytes, "--import-max-json-mib")
    report = reader.optional(lambda: reader.json(f"{name}/verifier/report.json"))
    named = result.trial_name if result is not None else config.get("trial_name")
    # A trial the export wrote under another directory name (harborlight/transfer/dir_names.py) keeps its name.
    renamed = isinstance(named, str) and named != name and trial_directory(named) == name
    return HarborTrial(
        named if renamed else name,
        config,
        result,
        trajectory,
        _lines(log),
        log,
        lock,
        started_ns=config_read.mtime_ns,
        verifier_started=reader.dir.holds_a_file(f"{name}/verifier"),
        verifier_report=None if report is _ABSENT else report,
        refused=tuple(reader.refused[before:]),
    )


def read_trial(path: Path, limits: FileLimits = FileLimits()) -> HarborTrial:
    """The trial directory at `path`, read confined to its job directory (path's parent)."""
    return _read_trial(_Reader(path.parent, limits), path.name)


def _head(reader: _Reader) -> tuple[dict[str, Any], JobResult | None]:
    path = reader.dir.shown
    if path.is_file():
        raise TransferError(
            f"{path}: a file, not a Harbor job directory: pass the directory that holds the job's "
            "config.json (an OTLP file: harborlight import otlp)"
        )
    if not path.is_dir():
        raise TransferError(f"{path}: no such directory")
    if not reader.dir.is_file("config.json"):
        jobs = sorted(name for name in trial_names(path) if trial_names(path / name))  # folders of trials
        hint = (
            f": it holds job directories; pass them, e.g. {path / jobs[0]} (or {path}/*)"
            if jobs
            else " (no config.json)"
        )
        raise TransferError(f"{path}: not a Harbor job directory{hint}")
    if path.name in trial_names(path.parent) and {"agent", "verifier"} & set(reader.dir.directories()[0]):
        raise TransferError(f"{path}: a trial directory, not a job directory: pass its job, {path.parent}")
    config = reader.json("config.json")
    if not isinstance(config, dict):
        raise TransferError(f"{path / 'config.json'}: not a Harbor JobConfig (expected a JSON object)")
    return config, reader.model(JobResult, "result.json")


def read_job_head(path: Path, limits: FileLimits = FileLimits()) -> tuple[dict[str, Any], JobResult | None]:
    """A job's config.json and result.json (None while Harbor has not written it), not its trials."""
    return _head(_Reader(path, limits))


def trial_names(path: Path) -> list[str]:
    """The job's trial directories (sub-directories inside it holding a config.json), by name."""
    directory = ConfinedDir(path)
    names, _ = directory.directories()
    return [name for name in names if directory.is_file(f"{name}/config.json")]


def read_job(path: Path, limits: FileLimits = FileLimits()) -> HarborJob:
    """The job at `path`. A file of it that is not a regular file inside it, or is over its limit, is left
    out with a line in `refused` (a trial whose config.json or result.json is refused: the whole trial)."""
    reader = _Reader(path, limits)
    config, result = _head(reader)
    names, refused_dirs = reader.dir.directories()
    reader.refused.extend(refused_dirs)
    trials = []
    for name in names:
        if not reader.dir.is_file(f"{name}/config.json"):
            continue
        before = len(reader.refused)
        try:
            trials.append(_read_trial(reader, name))
        except Refused as exc:
            del reader.refused[before:]
            reader.refused.append(f"{exc} (trial {name} not imported)")
    if not trials and not reader.refused:
        raise TransferError(f"{path}: not a Harbor job directory (no trial directories with a config.json)")
    log = reader.log("job.log", limits.log_bytes, "--import-max-log-mib")
    lock = reader.log("lock.json", limits.json_bytes, "--import-max-json-mib")
    return HarborJob(path.name, path, config, result, tuple(trials), _lines(log), log, lock, tuple(reader.refused))
