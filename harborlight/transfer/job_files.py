"""A job's Harbor directory as files (pure): {relative path: bytes}, the same bytes for the same
telemetry, so exporting twice writes identical files.

A trial is written to the directory harborlight/transfer/dir_names.py gives its name, its config.json and
result.json still naming it (Harbor's loaders read a trial's name from those, never from its
directory); the job's `.harborlight-trial-names.json` maps each directory that is not its trial's
name to that name.

Job `config.json` is the one the Harbor importer carried, else one built from what the trials say
(agents, tasks, attempts). Job `result.json` has Harbor's stats (harborlight/transfer/harbor_stats.py) over the
finished trials. A running trial gets its config, log and trajectory so far, and no result.json
(as Harbor writes it) unless a snapshot is asked for. `job.log` and `trial.log` are the files the
Harbor importer carried, as they were, else built from the telemetry; `lock.json` (job and trials)
only where it was carried: its task digests are not in the telemetry.
"""

import json
import uuid
from datetime import datetime

from harborlight.transfer.atif import to_json
from harborlight.transfer.dir_names import TRIAL_NAMES, safe_name, trial_directory
from harborlight.transfer.harbor_files import JobResult, dump, dump_object
from harborlight.transfer.harbor_logs import CarriedLogs
from harborlight.transfer.harbor_stats import job_stats
from harborlight.transfer.sidecars import gateway_log, trace_json
from harborlight.transfer.telemetry import TrialTelemetry
from harborlight.transfer.trial_build import NAMESPACE, TrialRecords, build_trial


def _job_id(job: str, trials: dict[str, TrialTelemetry]) -> str:
    for trial in trials.values():
        for event in trial.events:
            candidate = event.resource.get("harbor.job.id")
            if candidate:
                try:
                    return str(uuid.UUID(candidate))
                except ValueError:
                    pass
    return str(uuid.uuid5(NAMESPACE, f"job/{job}"))


def _local(ns: int) -> datetime:
    """Harbor writes job times as naive local time."""
    return datetime.fromtimestamp(ns // 1_000_000_000).replace(microsecond=(ns % 1_000_000_000) // 1000)


def _job_config(job: str, jobs_dir: str, records: list[TrialRecords]) -> dict:
    carried = next((r.job_config for r in records if isinstance(r.job_config, dict)), None)
    if carried is None:
        agents, tasks = [], []
        for r in records:
            agent = r.config.get("agent") or {}
            if agent and agent not in agents:
                agents.append(agent)
            task = r.config.get("task") or {}
            if task and task not in tasks:
                tasks.append(task)
        attempts = [r.attempt for r in records if r.attempt is not None]
        carried = {"n_attempts": max(attempts, default=1), "agents": agents, "tasks": tasks}
    return {**carried, "job_name": job, "jobs_dir": jobs_dir}


def job_files(
    job: str,
    trials: dict[str, TrialTelemetry],
    jobs_dir: str,
    snapshot: bool = False,
    logs: CarriedLogs = CarriedLogs(),
) -> dict[str, bytes]:
    safe_name(job, "job")
    job_dir = f"{jobs_dir.rstrip('/')}/{job}"
    job_id = _job_id(job, trials)
    directories = {name: trial_directory(name) for name in trials}
    records = [build_trial(trials[name], job, job_dir, job_id, directories[name]) for name in sorted(trials)]
    files: dict[str, str] = {}
    for r in records:
        name = directories[r.name]
        _trial_files(files, name, r, trials[r.name], snapshot, logs.trials.get(r.name))
        if (lock := logs.trial_locks.get(r.name)) is not None:
            files[f"{name}/lock.json"] = lock
    finished = [r.result for r in records if not r.running]
    running = [r for r in records if r.running]
    n_total = max([len(records), *(r.n_total_trials or 0 for r in records)])
    all_ns = [e.end_ns or e.start_ns for t in trials.values() for e in t.events]
    carried_start = next((r.job_started for r in records if r.job_started), None)
    starts = [t.events[0].start_ns for t in trials.values() if t.events]
    done = not running and len(finished) >= n_total
    result = JobResult(
        id=uuid.UUID(job_id),
        started_at=carried_start or _local(min(starts)),
        updated_at=_local(max(all_ns)),
        finished_at=_local(max(all_ns)) if done else None,
        n_total_trials=n_total,
        stats=job_stats(finished, n_total, len(running)),
    )
    files["config.json"] = dump_object(_job_config(job, jobs_dir, records))
    files["result.json"] = dump(result)
    files["job.log"] = logs.job if logs.job is not None else "".join(f"{line}\n" for line in _job_log(records))
    if logs.job_lock is not None:
        files["lock.json"] = logs.job_lock
    if renamed := {directory: name for name, directory in sorted(directories.items()) if directory != name}:
        files[TRIAL_NAMES] = json.dumps(renamed, indent=2, ensure_ascii=False) + "\n"
    return {path: text.encode() for path, text in sorted(files.items())}


def _trial_files(
    files: dict[str, str], name: str, r: TrialRecords, trial: TrialTelemetry, snapshot: bool, log: str | None
) -> None:
    files[f"{name}/config.json"] = dump_object(r.config)
    if not r.running or snapshot:
        files[f"{name}/result.json"] = dump(r.result)
    files[f"{name}/trial.log"] = log if log is not None else "".join(f"{line}\n" for line in r.log_lines)
    if r.exception_text is not None:
        files[f"{name}/exception.txt"] = r.exception_text
    if r.result.verifier_result and r.result.verifier_result.rewards is not None:
        files[f"{name}/verifier/reward.json"] = json.dumps(r.result.verifier_result.rewards, indent=2) + "\n"
    if r.trajectory is not None:
        files[f"{name}/agent/trajectory.json"] = to_json(r.trajectory)
    files[f"{name}/trace.json"] = trace_json(trial)
    if any(e.kind == "llm_request" and not e.is_lifecycle for e in trial.events):
        files[f"{name}/agent/gateway.log"] = gateway_log(trial)


def _job_log(records: list[TrialRecords]) -> list[str]:
    lines = []
    for r in sorted(records, key=lambda r: (r.result.started_at, r.name)):
        lines.append(f"{r.result.started_at.isoformat()} INFO trial {r.name} started")
        if r.running:
            lines.append(f"trial {r.name} is running")
            continue
        outcome = f"failed with {r.result.exception_info.exception_type}" if r.result.exception_info else "finished"
        rewards = r.result.verifier_result.rewards if r.result.verifier_result else None
        lines.append(f"{r.result.finished_at.isoformat()} INFO trial {r.name} {outcome}; rewards {rewards}")
    return lines
