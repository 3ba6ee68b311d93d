"""`import harbor JOBDIR...`: each trial of each Harbor job directory as the spans a live harness
and agent would have sent (so far, for a running trial), and the job's and trials' own log files as
log records (harborlight/transfer/harbor_logs.py), through the sink (the live ingest path)."""

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from harborlight.store import Signal
from harborlight.transfer import harbor_logs
from harborlight.transfer.confined_files import FileLimits
from harborlight.transfer.harbor_files import JobResult
from harborlight.transfer.harbor_read import HarborJob, HarborTrial, LogFile, read_job, read_job_head, trial_names
from harborlight.transfer.harbor_spans import JobContext, config_facts, trial_identity, trial_requests
from harborlight.transfer.pump import Pump, Tally
from harborlight.transfer.sink import Sink


@dataclass
class HarborImport:
    jobs: list[str] = field(default_factory=list)
    trials: int = 0  # finished and running
    running: int = 0  # of those, trials without result.json, imported as running
    running_skipped: int = 0  # running trials with nothing ended yet (no trajectory step): nothing to send
    spans: Tally = field(default_factory=Tally)
    logs: Tally = field(default_factory=Tally)
    refused: list[str] = field(
        default_factory=list
    )  # a line per file left out (harborlight/transfer/confined_files.py)


def _group(trial: HarborTrial) -> tuple:
    if trial.result is not None:
        info = trial.result.agent_info
        return trial.result.task_name, info.name, info.model_info.name if info.model_info else None
    return config_facts(trial)


def attempts(job: HarborJob) -> dict[str, int]:
    """harbor.attempt: the 1-based index of each trial among the job's trials of the same task and
    agent, finished ones first by start time, then running ones by name."""
    groups: dict[tuple, list[HarborTrial]] = defaultdict(list)
    for trial in job.trials:
        groups[_group(trial)].append(trial)
    numbers = {}
    for members in groups.values():
        ordered = sorted(
            members,
            key=lambda t: (
                t.result is None,
                t.result is None or t.result.started_at is None,
                t.result.started_at if t.result else None,
                t.name,
            ),
        )
        numbers.update({t.name: i for i, t in enumerate(ordered, 1)})
    return numbers


def _context(name: str, config: dict, result: JobResult | None) -> JobContext:
    return JobContext(
        name=name,
        job_id=str(result.id) if result else None,
        config=config,
        started_at=result.started_at if result else None,
        n_total_trials=result.n_total_trials if result else None,
    )


def context_of(job: HarborJob) -> JobContext:
    return _context(job.name, job.config, job.result)


def job_context(path: Path) -> JobContext:
    """The job's context from its config.json and result.json alone (a running job's trials aside)."""
    return _context(path.name, *read_job_head(path))


def count_trials(paths: list[Path]) -> int:
    """Trial directories to go through, for a progress bar (0 for what is not a directory)."""
    return sum(len(trial_names(path)) for path in paths if path.is_dir())


def _carried(resource: dict, files: dict[str, LogFile | None]) -> list[tuple[Signal, bytes]]:
    """Harbor's own files (logs, locks) that exist, as log records of their event names."""
    return [
        (Signal.logs, harbor_logs.log_request(resource, event, carried.text, carried.written_ns))
        for event, carried in files.items()
        if carried is not None
    ]


def trial_log_requests(context: JobContext, trial: HarborTrial, attempt: int | None) -> list[tuple[Signal, bytes]]:
    """A trial's trial.log and lock.json as the importer sends them."""
    return _carried(
        trial_identity(context, trial, attempt).resource_attributes(),
        {harbor_logs.TRIAL_LOG: trial.log, harbor_logs.TRIAL_LOCK: trial.lock},
    )


def job_log_requests(context: JobContext, job: HarborJob) -> list[tuple[Signal, bytes]]:
    """The job's job.log and lock.json as the importer sends them."""
    resource = {
        "service.name": "harbor",
        "harbor.job.name": job.name,
        **({"harbor.job.id": context.job_id} if context.job_id else {}),
    }
    return _carried(resource, {harbor_logs.JOB_LOG: job.log, harbor_logs.JOB_LOCK: job.lock})


async def import_harbor(
    paths: list[Path],
    sink: Sink,
    on_trial: Callable[[int], None] = lambda n: None,
    limits: FileLimits = FileLimits(),
    on_refused: Callable[[str], None] = lambda line: None,
) -> HarborImport:
    """Job by job: a directory that is not a Harbor job raises TransferError after the jobs before
    it are stored. A file that is not a regular file inside its job directory, or is over its limit, is
    left out (a trial whose config.json or result.json is: the trial) and told to `on_refused`."""
    report = HarborImport()
    pump = Pump(sink)
    logs = Pump(sink)
    try:
        for path in paths:
            job = read_job(path, limits)
            for line in job.refused:
                on_refused(line)
            report.refused.extend(job.refused)
            context = context_of(job)
            numbers = attempts(job)
            report.jobs.append(job.name)
            for trial in job.trials:
                bodies = trial_requests(context, trial, numbers.get(trial.name))
                if not bodies:
                    report.running_skipped += 1
                    on_trial(1)
                    continue
                for body in bodies:
                    await pump.send(Signal.traces, body)
                for signal, body in trial_log_requests(context, trial, numbers.get(trial.name)):
                    await logs.send(signal, body)
                report.trials += 1
                report.running += trial.result is None
                on_trial(1)
            for signal, body in job_log_requests(context, job):
                await logs.send(signal, body)
    finally:
        await pump.drain()
        await logs.drain()
        report.spans, report.logs = pump.tally, logs.tally
    return report
