"""Is job B better than job A on the tasks both ran, or is it noise? A paired comparison over tasks.

Each matched task gives one value per job: its solve fraction (resolved ÷ finished attempts other than
infrastructure failures, as the adjusted solve rate counts them) or, on graded jobs, its mean score
(weighted by parts, as mean_score is). A task without a value on either side is left out. The per-task
difference (B − A) is averaged, with a paired bootstrap interval over tasks (harborlight/read/derive/intervals.py),
and tested with the exact two-sided sign test over the tasks that moved — on pass/fail values, McNemar's
exact test, its discordant pairs being the tasks that flipped. B is called better (worse) when the test's
p-value is below 1 − the interval's level and the interval, when there is one, lies above (below) zero;
otherwise there is no detectable difference.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from harborlight.read.derive.intervals import LEVEL, ConfidenceInterval, difference_interval
from harborlight.read.derive.job_metrics import attempt_terms, task_ratios
from harborlight.read.derive.provenance import Valued, derived, unavailable
from harborlight.read.derive.records import TrialFacts

TaskKey = tuple[str | None, str]  # (dataset, task)
TESTS = {"mcnemar_exact": "McNemar exact", "sign": "exact sign test"}


@dataclass(frozen=True, slots=True)
class TaskPair:
    dataset: str | None
    task: str
    baseline: float  # the baseline job's value on the task
    value: float  # the compared job's value


@dataclass(frozen=True, slots=True)
class PairedComparison:
    measure: str  # "solved" (a fraction; differences read in percentage points) or "score"
    n_tasks: Valued[int]  # matched tasks with a value in both jobs
    n_excluded: Valued[int]  # matched tasks without a value in one of them
    mean_difference: Valued[float]  # mean over tasks of value − baseline
    difference_ci: Valued[ConfidenceInterval]
    test: str  # "mcnemar_exact" (every value 0 or 1) or "sign"
    p_value: Valued[float]
    n_better: Valued[int]  # tasks where the compared job's value is higher
    n_worse: Valued[int]
    n_tied: Valued[int]
    better_tasks: tuple[TaskPair, ...]
    worse_tasks: tuple[TaskPair, ...]
    verdict: str


def exact_sign_test(better: int, worse: int) -> float:
    """Two-sided p of `better` tasks up and `worse` down under Binomial(better + worse, 1/2):
    min(1, 2 · P(X <= min(better, worse))), exact then rounded once; 1 when nothing moved."""
    n = better + worse
    if n == 0:
        return 1.0
    tail = Fraction(sum(math.comb(n, i) for i in range(min(better, worse) + 1)), 2**n)
    return float(min(Fraction(1), 2 * tail))


def task_value(trials: Sequence[TrialFacts], measure: str) -> float | None:
    """One job's value on one task, from its finished attempts; None when none counts."""
    per_task = task_ratios(attempt_terms(trials, "adjusted" if measure == "solved" else "score"))
    return per_task[0][1] / per_task[0][2] if per_task else None


def paired(
    baseline: Mapping[TaskKey, Sequence[TrialFacts]],
    other: Mapping[TaskKey, Sequence[TrialFacts]],
    measure: str,
    names: tuple[str, str],
) -> PairedComparison:
    """`baseline` and `other`: each job's trials per matched task (the same keys). names: (baseline, other)."""
    pairs, excluded = [], 0
    for key in sorted(baseline, key=lambda k: (str(k[0]), k[1])):
        a, b = task_value(baseline[key], measure), task_value(other[key], measure)
        if a is None or b is None:
            excluded += 1
        else:
            pairs.append(TaskPair(key[0], key[1], a, b))
    differences = [p.value - p.baseline for p in pairs]
    better = tuple(p for p in pairs if p.value > p.baseline)
    worse = tuple(p for p in pairs if p.value < p.baseline)
    test = (
        "mcnemar_exact"
        if measure == "solved" and all(v in (0, 1) for p in pairs for v in (p.baseline, p.value))
        else "sign"
    )
    mean = (
        derived(math.fsum(differences) / len(differences))
        if pairs
        else unavailable("no matched task has a value in both jobs")
    )
    ci = difference_interval(differences)
    p_value = (
        derived(exact_sign_test(len(better), len(worse)), f"{len(better)} up, {len(worse)} down")
        if pairs
        else unavailable("no matched task has a value in both jobs")
    )
    return PairedComparison(
        measure,
        derived(len(pairs)),
        derived(excluded),
        mean,
        ci,
        test,
        p_value,
        derived(len(better)),
        derived(len(worse)),
        derived(len(pairs) - len(better) - len(worse)),
        better,
        worse,
        verdict(names, measure, len(pairs), mean, ci, test, p_value),
    )


def _amount(measure: str, d: float) -> str:
    return f"{d * 100:+.1f} points" if measure == "solved" else f"{d:+.3f}"


def _span(measure: str, ci: ConfidenceInterval) -> str:
    if measure == "solved":
        return f"{ci.level:.0%} CI {ci.low * 100:+.1f} to {ci.high * 100:+.1f} points"
    return f"{ci.level:.0%} CI {ci.low:+.3f} to {ci.high:+.3f}"


def verdict(
    names: tuple[str, str],
    measure: str,
    n: int,
    mean: Valued[float],
    ci: Valued[ConfidenceInterval],
    test: str,
    p: Valued[float],
) -> str:
    """One sentence: better, worse, or no detectable difference, with the numbers that say so."""
    base, other = names
    if mean.value is None or p.value is None:
        return f"no matched task has a value in both {base} and {other}"
    what = "solve rate" if measure == "solved" else "score"
    evidence = (
        f"{what} {_amount(measure, mean.value)}, "
        + (_span(measure, ci.value) if ci.value else f"no interval: {ci.note}")
        + f" ({TESTS[test]} p = {p.value:.2g})"
    )
    excludes_zero = ci.value is None or ci.value.low > 0 or ci.value.high < 0
    if p.value < 1 - LEVEL and excludes_zero and mean.value != 0:
        return f"{other} is {'better' if mean.value > 0 else 'worse'} than {base} on these {n} tasks: {evidence}"
    return f"no detectable difference between {other} and {base} on these {n} tasks: {evidence}"
