"""One row per job: solve rates, scores, outcome counts, totals and the run's shape."""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Never

from harborlight.read.derive.intervals import ConfidenceInterval, task_interval
from harborlight.read.derive.outcomes import INFRA_OUTCOMES, VERDICT_OUTCOMES, Outcome, classify, graded_score
from harborlight.read.derive.pass_at_k import Unit, unit_of, unit_order
from harborlight.read.derive.provenance import Valued, derived, measured, unavailable
from harborlight.read.derive.records import JobFacts, TrialFacts

CONTROL_AGENTS = frozenset({"oracle", "nop"})


@dataclass(frozen=True, slots=True)
class JobMetrics:
    job: str
    n_trials: Valued[int]
    n_running: Valued[int]
    raw_solve_rate: Valued[float]
    raw_solve_rate_ci: Valued[ConfidenceInterval]
    adjusted_solve_rate: Valued[float]
    adjusted_solve_rate_ci: Valued[ConfidenceInterval]
    n_infra: Valued[int]
    mean_score: Valued[float]
    mean_score_ci: Valued[ConfidenceInterval]
    parts_by: Valued[str]  # what score_by_group breaks the score down by: a part group or a reward key
    score_by_group: Valued[dict[str, float]]
    n_regressions: Valued[int]  # SWE-bench: trials whose patch broke a test that passed before it
    task_broken: Valued[dict[str, bool]]  # a nop control's verdict per task: it failed passing tests
    counts: Valued[dict[str, int]]
    total_input_tokens: Valued[int]
    total_cache_tokens: Valued[int]
    total_output_tokens: Valued[int]
    total_cost_usd: Valued[float]
    duration_min: Valued[float]
    agent_label: Valued[str]
    agent_version: Valued[str]
    is_control: Valued[bool]
    is_running: Valued[bool]
    n_planned: Valued[int]
    n_retries: Valued[int]
    dataset: Valued[str]


def outcome_counts(trials: Sequence[TrialFacts]) -> dict[Outcome, int]:
    """Finished trials per outcome, every class present (a count of 0 is a real count)."""
    counts = Counter(o for o in (classify(t).value for t in trials) if o is not None)
    return {o: counts.get(o, 0) for o in Outcome}


def solve_rates(counts: dict[Outcome, int]) -> tuple[Valued[float], Valued[float]]:
    """(raw, adjusted). Null when no finished trial has a pass or fail verdict, or when the
    denominator is empty: no verdict means no solve rate, not 0%."""
    if not any(counts[o] for o in VERDICT_OUTCOMES):
        none: Valued[Never] = unavailable("no trial has a pass or fail verdict")
        return none, none
    total = sum(counts.values())
    infra = sum(counts[o] for o in INFRA_OUTCOMES)
    resolved = counts[Outcome.RESOLVED]
    raw = derived(resolved / total, f"{resolved}/{total}")
    if total - infra == 0:
        return raw, unavailable("every trial is an infrastructure failure")
    return raw, derived(resolved / (total - infra), f"{resolved}/{total - infra}")


def mean_score(trials: Sequence[TrialFacts]) -> Valued[float]:
    """Mean graded score over finished trials that have one, weighted by n_parts when present."""
    pairs = [(s, n or 1) for s, n in (graded_score(t) for t in trials if not t.is_running) if s is not None]
    weight = sum(n for _, n in pairs)
    if not weight:
        return unavailable("no trial has a score")
    return derived(math.fsum(s * n / weight for s, n in pairs))


Term = tuple[Unit, float, float]  # one attempt's (task, numerator, denominator) in a per-task ratio


def attempt_terms(trials: Sequence[TrialFacts], measure: str) -> list[Term]:
    """The rates and the score as ratios of per-task sums, one term per counted finished attempt:
    "raw" resolved ÷ 1 for every attempt with an outcome; "adjusted" the same, infrastructure failures
    left out; "score" score × parts ÷ parts for every scored attempt (the weighting of mean_score)."""
    finished = [t for t in trials if not t.is_running]
    if measure == "score":
        scored = [(unit_of(t), *graded_score(t)) for t in finished]
        return [(u, s * (n or 1), float(n or 1)) for u, s, n in scored if s is not None]
    outcomes = [(unit_of(t), o) for t in finished if (o := classify(t).value) is not None]
    return [(u, float(o is Outcome.RESOLVED), 1.0) for u, o in outcomes if measure == "raw" or o not in INFRA_OUTCOMES]


def task_ratios(terms: Sequence[Term]) -> list[tuple[Unit, float, float]]:
    """(task, Σ numerator, Σ denominator) per task with a positive denominator, in task order."""
    sums: dict[Unit, list[float]] = {}
    for unit, numerator, denominator in terms:
        total = sums.setdefault(unit, [0.0, 0.0])
        total[0] += numerator
        total[1] += denominator
    return [(u, v[0], v[1]) for u, v in sorted(sums.items(), key=lambda kv: unit_order(kv[0])) if v[1] > 0]


def _interval(trials: Sequence[TrialFacts], measure: str, value: Valued[float]) -> Valued[ConfidenceInterval]:
    """The value's interval over tasks (null, with the value's reason, when the value is)."""
    if not value.known:
        return unavailable(value.note or f"no {measure} value")
    per_task = task_ratios(attempt_terms(trials, measure))
    return task_interval([n for _, n, _ in per_task], [d for _, _, d in per_task])


PART_GROUP = "part group"  # parts_by: the verifier's graded parts, each naming its group
REWARD_KEY = "reward key"  # parts_by: the keys of a verifier's reward dict with several keys


def _means(values: dict[str, list[float]]) -> dict[str, float]:
    return {g: math.fsum(v / len(vs) for v in vs) for g, vs in sorted(values.items())}


def score_by_group(trials: Sequence[TrialFacts]) -> tuple[Valued[str], Valued[dict[str, float]]]:
    """(parts_by, score_by_group): what the scores break down by, and the mean score per value of it, over
    finished trials. Graded parts with a group break down by their group; else a reward dict with several
    keys (Harbor's verifier_result.rewards: a multi-part score) by its keys, each key's mean over the
    trials that recorded it."""
    finished = [t for t in trials if not t.is_running]
    groups: dict[str, list[float]] = {}
    for part in (p for t in finished for p in t.parts):
        if part.group is not None:
            groups.setdefault(part.group, []).append(part.score)
    if groups:
        return measured(PART_GROUP), derived(_means(groups))
    multi = [t.rewards for t in finished if t.rewards and len(t.rewards) > 1]
    if not multi:
        none: Valued[Never] = unavailable("no graded parts with a group, and no reward with several keys")
        return none, none
    keys: dict[str, list[float]] = {}
    for rewards in multi:
        for key, value in rewards.items():
            keys.setdefault(key, []).append(value)
    return measured(REWARD_KEY), derived(
        _means(keys), f"{len(multi)} of {len(finished)} finished trials recorded a reward with several keys"
    )


def _broke_passing_tests(trials: Sequence[TrialFacts]) -> list[tuple[TrialFacts, bool]]:
    """(trial, whether a PASS_TO_PASS check failed) for each finished trial whose report counts them."""
    return [
        (t, t.report.p2p_fail > 0)
        for t in trials
        if not t.is_running and t.report is not None and t.report.p2p_fail is not None
    ]


def n_regressions(trials: Sequence[TrialFacts]) -> Valued[int]:
    """Finished trials whose patch broke a previously passing test (a PASS_TO_PASS failure)."""
    reported = _broke_passing_tests(trials)
    if not reported:
        return unavailable("no trial has a PASS_TO_PASS report")
    finished = sum(not t.is_running for t in trials)
    note = (
        None
        if len(reported) == finished
        else f"{len(reported)} of {finished} finished trials have a PASS_TO_PASS report"
    )
    return derived(sum(broke for _, broke in reported), note)


def task_broken(trials: Sequence[TrialFacts], agent: str | None) -> Valued[dict[str, bool]]:
    """For a `nop` control run (it changes nothing): per task, whether its passing tests failed anyway,
    so the task is broken as shipped or its verifier unstable."""
    if agent != "nop":
        return unavailable("not a nop control run")
    by_task: dict[str, bool] = {}
    for t, broke in _broke_passing_tests(trials):
        if t.task:
            by_task[t.task] = by_task.get(t.task, False) or broke
    if not by_task:
        return unavailable("no nop trial has a PASS_TO_PASS report")
    return derived(dict(sorted(by_task.items())))


def _total(values: list[float | int | None], what: str) -> Valued[Any]:  # int for counts, float if any is
    known = [v for v in values if v is not None]
    if not known:
        return unavailable(f"no trial recorded {what}")
    note = None if len(known) == len(values) else f"{len(known)} of {len(values)} trials recorded {what}"
    return derived(math.fsum(known) if any(isinstance(v, float) for v in known) else sum(known), note)


def _single(values: list[str | None], what: str) -> Valued[str]:
    known = sorted({v for v in values if v})
    if len(known) == 1:
        return measured(known[0])
    return unavailable(f"no {what} recorded" if not known else f"several: {', '.join(known)}")


def dataset_of(trials: Sequence[TrialFacts]) -> Valued[str]:
    sources = sorted({t.source for t in trials if t.source})
    if len(sources) == 1:
        return measured(sources[0])
    tasks = [t.task for t in trials if t.task]
    prefix = os.path.commonprefix(tasks).rstrip("-_/.") if len(tasks) > 1 and not sources else ""
    if prefix:
        return derived(prefix, "shared prefix of the task names")
    return unavailable("several datasets" if sources else "no dataset recorded")


def derive_job(trials: Sequence[TrialFacts], job: JobFacts | None = None) -> JobMetrics:
    name = job.job if job else (trials[0].job if trials else "")
    finished = [t for t in trials if not t.is_running]
    counts = outcome_counts(finished)
    raw, adjusted = solve_rates(counts)
    score = mean_score(trials)
    running = any(t.is_running for t in trials) or bool(job and job.is_running)
    parts_by, by_group = score_by_group(trials)
    agent = _single([t.agent_name for t in trials], "agent name")
    label = measured(job.agent_label) if job and job.agent_label else agent
    return JobMetrics(
        job=name,
        n_trials=measured(len(trials)),
        n_running=measured(sum(t.is_running for t in trials)),
        raw_solve_rate=raw,
        raw_solve_rate_ci=_interval(finished, "raw", raw),
        adjusted_solve_rate=adjusted,
        adjusted_solve_rate_ci=_interval(finished, "adjusted", adjusted),
        n_infra=derived(sum(counts[o] for o in INFRA_OUTCOMES)),
        mean_score=score,
        mean_score_ci=_interval(trials, "score", score),
        parts_by=parts_by,
        score_by_group=by_group,
        n_regressions=n_regressions(trials),
        task_broken=task_broken(trials, agent.value),
        counts=derived({o.value: n for o, n in counts.items()}),
        total_input_tokens=_total([t.n_input_tokens for t in trials], "input tokens"),
        total_cache_tokens=_total([t.n_cache_tokens for t in trials], "cache tokens"),
        total_output_tokens=_total([t.n_output_tokens for t in trials], "output tokens"),
        total_cost_usd=_total([t.cost_usd for t in trials], "a cost"),
        duration_min=_duration(trials, job, running),
        agent_label=label,
        agent_version=_single([t.agent_version for t in trials], "agent version"),
        is_control=measured(agent.value in CONTROL_AGENTS) if agent.value else unavailable("no agent name"),
        is_running=measured(running),
        n_planned=measured(job.n_planned)
        if job and job.n_planned is not None
        else unavailable("no run record of planned trials"),
        n_retries=measured(job.n_retries)
        if job and job.n_retries is not None
        else unavailable("no retries recorded by the harness"),
        dataset=dataset_of(trials),
    )


def _duration(trials: Sequence[TrialFacts], job: JobFacts | None, running: bool) -> Valued[float]:
    if running:
        return unavailable("job still running")
    start = (
        job.started_at
        if job and job.started_at is not None
        else min((t.started_at for t in trials if t.started_at is not None), default=None)
    )
    end = (
        job.finished_at
        if job and job.finished_at is not None
        else max((t.finished_at for t in trials if t.finished_at is not None), default=None)
    )
    if start is None or end is None:
        return unavailable("no start or end recorded")
    return derived((end - start) / 60.0)
