"""Compare like with like: two or more jobs on their matched tasks.

Matched tasks are the intersection of the jobs' recorded (dataset, task) identities, without
guessing aliases. Every attempt on a matched task contributes to rates, tokens and costs; a task's
row shows each job's last indexed attempt. Whole-run wall time is left out: it does not measure
just the matched tasks. The first job is the baseline of the differences, the flips and the paired
comparison (harborlight/read/derive/paired.py) of each other job.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from harborlight.read.derive.agentcompass_attempts import primary_for
from harborlight.read.derive.job_metrics import JobMetrics, derive_job
from harborlight.read.derive.outcomes import Outcome, classify
from harborlight.read.derive.paired import PairedComparison, TaskKey, paired
from harborlight.read.derive.provenance import Valued, derived, unavailable
from harborlight.read.derive.records import TrialFacts

RATE_FIELDS = ("raw_solve_rate", "adjusted_solve_rate", "mean_score")
# A task row's last_agent_message costs a trajectory per task and job: read only when asked.
LAST_MESSAGE_NOT_ASKED = "not read: pass last_message=true (it builds one trajectory per task and job)"


@dataclass(frozen=True, slots=True)
class TaskRow:
    dataset: str | None
    task: str
    outcomes: dict[str, Outcome | None]  # job -> outcome of its last indexed attempt
    flip: str | None  # "gained" / "lost" against the baseline, "mixed" over 3+ jobs, None: no flip
    last_trial: dict[str, str]  # job -> the trial of its last indexed attempt (the one `outcomes` shows)
    last_agent_message: dict[
        str, Valued[str]
    ]  # job -> that trial's closing message (harborlight/read/derive/last_message.py)


@dataclass(frozen=True, slots=True)
class Comparison:
    jobs: tuple[str, ...]
    matched_tasks: Valued[int]
    metrics: dict[str, JobMetrics]  # job -> metrics over its matched-task trials only
    differences: dict[str, dict[str, Valued[float]]]  # job -> field -> job minus baseline
    rows: tuple[TaskRow, ...]
    n_flips: Valued[int]
    paired: dict[str, PairedComparison]  # job -> paired comparison with the baseline


def _key(t: TrialFacts) -> TaskKey | None:
    return (t.source, t.task) if t.task else None


def _last(trials: Sequence[TrialFacts]) -> TrialFacts:
    return max(trials, key=lambda t: (t.attempt or 0, t.started_at or 0.0, t.trial))


def _flip(resolved: list[bool | None]) -> str | None:
    known = [r for r in resolved if r is not None]
    if len(known) < 2 or len(set(known)) == 1:
        return None
    if len(resolved) == 2 and None not in resolved:
        return "gained" if resolved[1] and not resolved[0] else "lost"
    return "mixed"


def compare(jobs: Mapping[str, Sequence[TrialFacts]]) -> Comparison:
    """Jobs in baseline-first order (mapping order)."""
    if len(jobs) < 2:
        raise ValueError("compare needs two or more jobs")
    names = tuple(jobs)
    keysets = [{k for t in trials if (k := _key(t)) is not None} for trials in jobs.values()]
    matched = set.intersection(*keysets)
    on_matched = {j: [t for t in jobs[j] if _key(t) in matched] for j in names}
    metrics = {j: _without_wall_time(derive_job(on_matched[j])) for j in names}
    base = metrics[names[0]]
    differences = {j: {f: _diff(getattr(metrics[j], f), getattr(base, f)) for f in RATE_FIELDS} for j in names[1:]}
    by_task = {j: _by_task(on_matched[j]) for j in names}
    rows = []
    for key in sorted(matched, key=lambda k: (str(k[0]), k[1])):
        last = {j: _last(by_task[j][key]) for j in names}
        outcomes = {j: classify(t).value for j, t in last.items()}
        resolved = [None if o is None else o is Outcome.RESOLVED for o in outcomes.values()]
        rows.append(
            TaskRow(
                key[0],
                key[1],
                outcomes,
                _flip(resolved),
                {j: t.trial for j, t in last.items()},
                {j: unavailable(LAST_MESSAGE_NOT_ASKED) for j in names},
            )
        )
    measure = "score" if primary_for([t for j in names for t in on_matched[j]]) == "score" else "solved"
    comparisons = {j: paired(by_task[names[0]], by_task[j], measure, (names[0], j)) for j in names[1:]}
    return Comparison(
        names,
        derived(len(matched)),
        metrics,
        differences,
        tuple(rows),
        derived(sum(r.flip is not None for r in rows)),
        comparisons,
    )


def _by_task(trials: Sequence[TrialFacts]) -> dict[TaskKey, list[TrialFacts]]:
    out: dict[TaskKey, list[TrialFacts]] = {}
    for t in trials:
        out.setdefault(_key(t), []).append(t)  # type: ignore[arg-type]  # matched trials have a key
    return out


def _diff(value: Valued[float], base: Valued[float]) -> Valued[float]:
    if value.value is None or base.value is None:
        return unavailable("a rate is missing on one side")
    return derived(value.value - base.value)


def _without_wall_time(m: JobMetrics) -> JobMetrics:
    return replace(m, duration_min=unavailable("matched views omit whole-run wall time"))
