"""`import harbor JOBDIR...`: each finished trial of each Harbor job directory as the spans a live
harness and agent would have sent, through the sink (the live ingest path)."""

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from importers.harbor_read import HarborJob, HarborTrial, read_job
from importers.harbor_spans import JobContext, trial_requests
from importers.pump import Pump, Tally
from importers.sink import Sink
from storage import Signal


@dataclass
class HarborImport:
    jobs: list[str] = field(default_factory=list)
    trials: int = 0
    running_skipped: int = 0  # trials without result.json: nothing finished to import yet
    spans: Tally = field(default_factory=Tally)


def attempts(job: HarborJob) -> dict[str, int]:
    """harbor.attempt: the 1-based index of each trial among the job's trials of the same task and agent."""
    groups: dict[tuple, list[HarborTrial]] = defaultdict(list)
    for trial in job.trials:
        if trial.result is None:
            continue
        info = trial.result.agent_info
        groups[(trial.result.task_name, info.name, info.model_info.name if info.model_info else None)].append(trial)
    numbers = {}
    for members in groups.values():
        ordered = sorted(members, key=lambda t: (t.result.started_at is None, t.result.started_at, t.name))
        numbers.update({t.name: i for i, t in enumerate(ordered, 1)})
    return numbers


def context_of(job: HarborJob) -> JobContext:
    result = job.result
    return JobContext(name=job.name, job_id=str(result.id) if result else None, config=job.config,
                      started_at=result.started_at if result else None,
                      n_total_trials=result.n_total_trials if result else None)


def count_trials(paths: list[Path]) -> int:
    """Trial directories to go through, for a progress bar (0 for what is not a directory)."""
    return sum(1 for path in paths if path.is_dir() for p in path.iterdir() if (p / "config.json").is_file())


async def import_harbor(paths: list[Path], sink: Sink,
                        on_trial: Callable[[int], None] = lambda n: None) -> HarborImport:
    """Job by job: a directory that is not a Harbor job raises TransferError after the jobs before
    it are stored."""
    report = HarborImport()
    pump = Pump(sink)
    try:
        for path in paths:
            job = read_job(path)
            context = context_of(job)
            numbers = attempts(job)
            report.jobs.append(job.name)
            for trial in job.trials:
                if trial.result is None:
                    report.running_skipped += 1
                    on_trial(1)
                    continue
                for body in trial_requests(context, trial, numbers.get(trial.name)):
                    await pump.send(Signal.traces, body)
                report.trials += 1
                on_trial(1)
    finally:
        await pump.drain()
        report.spans = pump.tally
    return report
