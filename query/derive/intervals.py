"""How sure a rate or a mean is: a 95% confidence interval over tasks, the unit of an evaluation.

Every statistic here is a ratio of per-task sums, Σ numerator / Σ denominator over the tasks (a solve
rate: resolved attempts / attempts; a mean score: Σ score·parts / Σ parts; pass@k: the per-task
estimate / 1). Attempts of one task are not independent draws, so tasks, never attempts, are resampled.

- A share of tasks passed (every task all-pass or all-fail, the statistic equal to passed tasks / tasks)
  gets the Wilson score interval, which stays honest at 0%, 100% and small n.
- Anything else gets a percentile bootstrap over tasks: RESAMPLES resamples of the tasks with
  replacement, drawn by numpy's default generator seeded with SEED (the same data always gives the same
  interval), the statistic recomputed on each, and its 2.5th and 97.5th percentiles (numpy's linear
  interpolation) are the interval. Below MIN_BOOTSTRAP_TASKS tasks, or when every task has the same
  value, there is too little spread to resample: the interval is null with that reason.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from query.derive.provenance import Valued, derived, unavailable

LEVEL = 0.95
RESAMPLES = 4000
SEED = 0
MIN_BOOTSTRAP_TASKS = 10
_CHUNK = 500  # resamples drawn at a time, to bound memory on large jobs


@dataclass(frozen=True, slots=True)
class ConfidenceInterval:
    low: float
    high: float
    level: float  # 0.95
    method: str  # "wilson" | "bootstrap"
    n_tasks: int  # tasks behind the statistic
    resamples: int | None = None  # bootstrap only
    seed: int | None = None  # bootstrap only


def _z(level: float) -> float:
    return NormalDist().inv_cdf(1 - (1 - level) / 2)


def wilson(successes: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """The Wilson score interval for `successes` out of `n` (n >= 1)."""
    z, p = _z(level), successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def bootstrap_ratio(numerators: Sequence[float], denominators: Sequence[float], *, level: float = LEVEL,
                    resamples: int = RESAMPLES, seed: int = SEED) -> tuple[float, float]:
    """Percentile interval of Σ numerators / Σ denominators over tasks resampled with replacement.
    Every denominator must be positive, so no resample divides by zero."""
    num, den = np.asarray(numerators, dtype=float), np.asarray(denominators, dtype=float)
    rng, n = np.random.default_rng(seed), len(num)
    stats = []
    for start in range(0, resamples, _CHUNK):
        picks = rng.integers(0, n, size=(min(_CHUNK, resamples - start), n))
        stats.append(num[picks].sum(axis=1) / den[picks].sum(axis=1))
    tail = (1 - level) / 2
    low, high = np.quantile(np.concatenate(stats), [tail, 1 - tail])
    return float(low), float(high)


def task_interval(numerators: Sequence[float], denominators: Sequence[float]) -> Valued[ConfidenceInterval]:
    """The interval of Σ numerators / Σ denominators, one entry per task with a positive denominator."""
    n = len(numerators)
    if n == 0:
        return unavailable("no task behind the value")
    ratios = [v / d for v, d in zip(numerators, denominators)]
    passed = sum(r == 1 for r in ratios)
    if all(r in (0, 1) for r in ratios) and math.isclose(math.fsum(numerators) / math.fsum(denominators), passed / n):
        low, high = wilson(passed, n)
        return derived(ConfidenceInterval(low, high, LEVEL, "wilson", n), f"Wilson, {passed}/{n} tasks")
    return _bootstrap(numerators, denominators, ratios)


def mean_interval(values: Sequence[float]) -> Valued[ConfidenceInterval]:
    """The interval of the mean of per-task values (each task weighs the same)."""
    return task_interval(values, [1] * len(values))


def difference_interval(differences: Sequence[float]) -> Valued[ConfidenceInterval]:
    """The interval of the mean of per-task paired differences (job minus baseline on each task): always
    the bootstrap, a difference being no share of tasks."""
    if not differences:
        return unavailable("no task behind the value")
    return _bootstrap(differences, [1] * len(differences), list(differences))


def _bootstrap(numerators: Sequence[float], denominators: Sequence[float],
               ratios: Sequence[float]) -> Valued[ConfidenceInterval]:
    n = len(numerators)
    if n < MIN_BOOTSTRAP_TASKS:
        return unavailable(f"{n} task(s); a bootstrap over tasks needs at least {MIN_BOOTSTRAP_TASKS}")
    if len(set(ratios)) == 1:
        return unavailable(f"every task has the same value ({ratios[0]:.4g}): nothing to resample")
    low, high = bootstrap_ratio(numerators, denominators)
    return derived(ConfidenceInterval(low, high, LEVEL, "bootstrap", n, RESAMPLES, SEED),
                   f"percentile bootstrap over {n} tasks")
