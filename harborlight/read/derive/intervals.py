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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from harborlight.read.derive.provenance import Valued, derived, unavailable

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


def bootstrap_ratio(
    numerators: Sequence[float],
    denominators: Sequence[float],
    *,
    level: float = LEVEL,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> tuple[float, float]:
    """Percentile interval of Σ numerators / Σ denominators over tasks resampled with replacement.
    Every denominator must be positive, so no resample divides by zero."""
    return bootstrap_columns(
        np.asarray(numerators, dtype=float)[:, None], denominators, level=level, resamples=resamples, seed=seed
    )[0]


def bootstrap_columns(
    numerators: np.ndarray,
    denominators: Sequence[float],
    *,
    level: float = LEVEL,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> list[tuple[float, float]]:
    """bootstrap_ratio of each column of `numerators` (tasks × statistics) over the same denominators,
    all from the same resamples of the tasks (one draw serves every column: pass@k for each k)."""
    num, den = np.asarray(numerators, dtype=float), np.asarray(denominators, dtype=float)
    rng, n = np.random.default_rng(seed), len(num)
    same_weight = bool((den == den[0]).all())  # then every resample's Σ denominators is n × that weight
    stats = []
    for start in range(0, resamples, _CHUNK):
        picks = rng.integers(0, n, size=(min(_CHUNK, resamples - start), n), dtype=np.int32)  # 32-bit: ~3x faster
        weights = n * den[0] if same_weight else den[picks].sum(axis=1)[:, None]
        stats.append(num[picks].sum(axis=1) / weights)
    tail = (1 - level) / 2
    bounds = np.quantile(np.concatenate(stats), [tail, 1 - tail], axis=0)
    return [(float(low), float(high)) for low, high in bounds.T]


def _unresampled(
    numerators: Sequence[float], denominators: Sequence[float], wilson_allowed: bool = True
) -> Valued[ConfidenceInterval] | None:
    """The interval when no bootstrap decides it: Wilson for a share of tasks passed, or null with the
    reason there is too little data; None when the bootstrap is to decide."""
    n = len(numerators)
    if n == 0:
        return unavailable("no task behind the value")
    ratios = [v / d for v, d in zip(numerators, denominators, strict=True)]
    passed = sum(r == 1 for r in ratios)
    if (
        wilson_allowed
        and all(r in (0, 1) for r in ratios)
        and math.isclose(math.fsum(numerators) / math.fsum(denominators), passed / n)
    ):
        low, high = wilson(passed, n)
        return derived(ConfidenceInterval(low, high, LEVEL, "wilson", n), f"Wilson, {passed}/{n} tasks")
    if n < MIN_BOOTSTRAP_TASKS:
        return unavailable(f"{n} task(s); a bootstrap over tasks needs at least {MIN_BOOTSTRAP_TASKS}")
    if len(set(ratios)) == 1:
        return unavailable(f"every task has the same value ({ratios[0]:.4g}): nothing to resample")
    return None


def _bootstrapped(low_high: tuple[float, float], n: int) -> Valued[ConfidenceInterval]:
    return derived(
        ConfidenceInterval(*low_high, LEVEL, "bootstrap", n, RESAMPLES, SEED), f"percentile bootstrap over {n} tasks"
    )


def task_interval(numerators: Sequence[float], denominators: Sequence[float]) -> Valued[ConfidenceInterval]:
    """The interval of Σ numerators / Σ denominators, one entry per task with a positive denominator."""
    decided = _unresampled(numerators, denominators)
    return decided if decided is not None else _bootstrapped(bootstrap_ratio(numerators, denominators), len(numerators))


def mean_interval(values: Sequence[float]) -> Valued[ConfidenceInterval]:
    """The interval of the mean of per-task values (each task weighs the same)."""
    return task_interval(values, [1] * len(values))


def mean_intervals[K](columns: Mapping[K, Sequence[float]]) -> dict[K, Valued[ConfidenceInterval]]:
    """mean_interval of each column, the columns being values of the same tasks (pass@k for each k):
    the same answers, from one resampling of the tasks."""
    out: dict[K, Valued[ConfidenceInterval] | None] = {k: _unresampled(v, [1] * len(v)) for k, v in columns.items()}
    pending = [k for k, v in out.items() if v is None]
    if pending:
        n = len(columns[pending[0]])
        bounds = bootstrap_columns(np.column_stack([columns[k] for k in pending]), [1] * n)
        out |= {k: _bootstrapped(b, n) for k, b in zip(pending, bounds, strict=True)}
    return out  # type: ignore[return-value]


def difference_interval(differences: Sequence[float]) -> Valued[ConfidenceInterval]:
    """The interval of the mean of per-task paired differences (job minus baseline on each task): always
    the bootstrap, a difference being no share of tasks."""
    decided = _unresampled(differences, [1] * len(differences), wilson_allowed=False)
    return (
        decided
        if decided is not None
        else _bootstrapped(bootstrap_ratio(differences, [1] * len(differences)), len(differences))
    )
