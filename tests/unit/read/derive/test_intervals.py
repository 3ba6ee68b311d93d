"""Confidence intervals on the job's rates, means and pass@k, checked against independent computations:
statsmodels' Wilson interval and scipy's bootstrap (percentile, over tasks; paired for a ratio of sums)."""

import random

import numpy as np
import pytest
from scipy.stats import bootstrap
from statsmodels.stats.proportion import proportion_confint

from harborlight.read.derive.intervals import (
    LEVEL,
    MIN_BOOTSTRAP_TASKS,
    RESAMPLES,
    bootstrap_ratio,
    mean_interval,
    wilson,
)
from harborlight.read.derive.job_metrics import derive_job
from harborlight.read.derive.pass_at_k import derive_pass_at_k, pass_at, pass_hat
from harborlight.read.derive.records import ScorePart
from tests.unit.read.derive.builders import trial

# Two independent bootstraps of the same data agree to Monte Carlo error: with 4,000 and 20,000
# resamples of 40-200 tasks, the 2.5% / 97.5% percentiles differ by well under 0.02.
MC_TOLERANCE = 0.02


def scipy_percentile(data: tuple, statistic, paired: bool = False) -> tuple[float, float]:
    result = bootstrap(
        data,
        statistic,
        n_resamples=20_000,
        confidence_level=LEVEL,
        method="percentile",
        paired=paired,
        vectorized=False,
        random_state=np.random.default_rng(12345),
    )
    return result.confidence_interval.low, result.confidence_interval.high


def test_wilson_is_statsmodels_wilson():
    for n in (1, 2, 5, 17, 100, 1000):
        for successes in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            if 0 <= successes <= n:
                low, high = proportion_confint(successes, n, alpha=1 - LEVEL, method="wilson")
                assert wilson(successes, n) == pytest.approx((low, high), abs=1e-12)


def test_bootstrap_of_a_mean_agrees_with_scipy():
    values = [random.Random(i).betavariate(2, 5) for i in range(60)]
    ours = bootstrap_ratio(values, [1.0] * len(values))
    theirs = scipy_percentile((np.array(values),), np.mean)
    assert ours == pytest.approx(theirs, abs=MC_TOLERANCE)
    assert ours[0] < np.mean(values) < ours[1]


def test_bootstrap_of_a_ratio_resamples_tasks_with_their_weights():
    rng = random.Random(3)
    attempts = [rng.randint(1, 5) for _ in range(80)]
    solved = [rng.randint(0, a) for a in attempts]
    ours = bootstrap_ratio(solved, attempts)
    theirs = scipy_percentile(
        (np.array(solved, float), np.array(attempts, float)), lambda s, a: s.sum() / a.sum(), paired=True
    )
    assert ours == pytest.approx(theirs, abs=MC_TOLERANCE)


def test_one_attempt_per_task_gives_the_wilson_interval_of_the_solve_rate():
    trials = [trial(f"t{i}", reward=1.0 if i % 4 == 0 else 0.0) for i in range(40)] + [
        trial("infra", exception="EnvironmentStartTimeoutError")
    ]
    job = derive_job(trials)
    raw, adjusted = job.raw_solve_rate_ci.value, job.adjusted_solve_rate_ci.value
    assert raw.method == "wilson" and raw.n_tasks == 41 and raw.level == 0.95
    assert (raw.low, raw.high) == pytest.approx(proportion_confint(10, 41, alpha=0.05, method="wilson"))
    assert adjusted.n_tasks == 40  # the infrastructure failure leaves the adjusted denominator
    assert (adjusted.low, adjusted.high) == pytest.approx(proportion_confint(10, 40, alpha=0.05, method="wilson"))
    assert raw.low < job.raw_solve_rate.value < raw.high


def test_repeated_attempts_do_not_narrow_the_interval_tasks_are_the_unit():
    """Five identical attempts per task are one observation of the task, not five."""
    once = [trial(f"t{i}", reward=float(i % 3 == 0)) for i in range(30)]
    five = [trial(f"t{i}", attempt=a, reward=float(i % 3 == 0)) for i in range(30) for a in range(1, 6)]
    single, repeated = derive_job(once).raw_solve_rate_ci.value, derive_job(five).raw_solve_rate_ci.value
    assert (repeated.low, repeated.high, repeated.n_tasks) == (single.low, single.high, 30)
    low, high = proportion_confint(50, 150, alpha=0.05, method="wilson")  # what counting attempts would claim
    assert high - low < repeated.high - repeated.low


def test_mixed_attempts_bootstrap_over_tasks_agrees_with_scipy():
    rng = random.Random(11)
    trials, solved, attempts = [], [], []
    for i in range(50):
        verdicts = [rng.random() < 0.4 + 0.01 * i for _ in range(3)]
        trials += [trial(f"t{i}", attempt=a, reward=float(v)) for a, v in enumerate(verdicts, start=1)]
        solved.append(sum(verdicts))
        attempts.append(3)
    ci = derive_job(trials).raw_solve_rate_ci
    assert ci.value.method == "bootstrap" and ci.value.n_tasks == 50 and ci.value.resamples == RESAMPLES
    theirs = scipy_percentile(
        (np.array(solved, float), np.array(attempts, float)), lambda s, a: s.sum() / a.sum(), paired=True
    )
    assert (ci.value.low, ci.value.high) == pytest.approx(theirs, abs=MC_TOLERANCE)


def test_mean_score_interval_weights_parts_within_each_task():
    rng = random.Random(5)
    trials, weighted, parts = [], [], []
    for i in range(45):
        scores = [rng.random() for _ in range(rng.randint(1, 4))]
        trials.append(trial(f"t{i}", reward=0.5, parts=tuple(ScorePart(s) for s in scores)))
        weighted.append(sum(scores))
        parts.append(len(scores))
    job = derive_job(trials)
    assert job.mean_score.value == pytest.approx(sum(weighted) / sum(parts))
    theirs = scipy_percentile((np.array(weighted), np.array(parts, float)), lambda w, p: w.sum() / p.sum(), paired=True)
    ci = job.mean_score_ci.value
    assert ci.method == "bootstrap" and (ci.low, ci.high) == pytest.approx(theirs, abs=MC_TOLERANCE)


def test_the_same_data_in_any_order_gives_the_same_interval():
    rng = random.Random(2)
    trials = [trial(f"t{i}", attempt=a, reward=float(rng.random() < 0.5)) for i in range(30) for a in (1, 2)]
    first = derive_job(trials)
    rng.shuffle(trials)
    again = derive_job(trials)
    assert first.raw_solve_rate_ci == again.raw_solve_rate_ci and first.raw_solve_rate_ci.value.seed == 0
    assert derive_pass_at_k(trials).pass_at_k_ci == derive_pass_at_k(list(reversed(trials))).pass_at_k_ci


def test_too_little_data_is_null_with_a_reason():
    few = [trial(f"t{i}", attempt=a, reward=float(a == 1 or i == 0)) for i in range(4) for a in (1, 2)]
    ci = derive_job(few).raw_solve_rate_ci
    assert ci.value is None and ci.provenance == "unavailable"
    assert ci.note == f"4 task(s); a bootstrap over tasks needs at least {MIN_BOOTSTRAP_TASKS}"
    nothing = derive_job([trial("t1"), trial("t2")])  # no verdict: no rate, so no interval
    assert nothing.raw_solve_rate_ci.value is None and nothing.raw_solve_rate_ci.note == nothing.raw_solve_rate.note
    assert nothing.mean_score_ci.note == "no trial has a score"
    same = derive_job([trial(f"t{i}", attempt=a, reward=float(a == 1)) for i in range(12) for a in (1, 2)])
    assert same.raw_solve_rate_ci.value is None and "same value (0.5)" in same.raw_solve_rate_ci.note


def test_pass_at_k_intervals_bootstrap_the_per_task_estimates():
    rng = random.Random(9)
    trials = []
    for i in range(40):
        p = rng.random()
        trials += [trial(f"t{i}", attempt=a, reward=float(rng.random() < p)) for a in range(1, 5)]
    result = derive_pass_at_k(trials)
    units: dict[str, list[bool]] = {}
    for t in trials:
        units.setdefault(t.task, []).append(t.rewards["reward"] == 1.0)
    for k in (2, 3):
        for series, estimator in (("pass_at_k_ci", pass_at), ("pass_hat_k_ci", pass_hat)):
            values = np.array([estimator(len(v), sum(v), k) for v in units.values()])
            ci = getattr(result, series).value[k].value
            assert ci.method == "bootstrap" and ci.n_tasks == 40
            assert (ci.low, ci.high) == pytest.approx(scipy_percentile((values,), np.mean), abs=MC_TOLERANCE)
    # k = n: every unit's pass@4 is 0 or 1, a share of tasks: Wilson
    at4 = result.pass_at_k_ci.value[4].value
    solved_any = sum(any(v) for v in units.values())
    assert at4.method == "wilson" and (at4.low, at4.high) == pytest.approx(
        proportion_confint(solved_any, 40, alpha=0.05, method="wilson")
    )


def test_a_mean_of_zeros_and_ones_is_a_proportion():
    ci = mean_interval([1.0, 0.0, 1.0]).value
    assert ci.method == "wilson" and (ci.low, ci.high) == pytest.approx(
        proportion_confint(2, 3, alpha=0.05, method="wilson")
    )


def test_one_resampling_serves_every_k_with_the_same_answers_as_one_at_a_time():
    from harborlight.read.derive.intervals import mean_intervals

    rng = random.Random(12)
    columns = {k: [rng.random() ** k for _ in range(30)] for k in (2, 3, 4)} | {"binary": [1.0, 0.0] * 15}
    together, alone = mean_intervals(columns), {k: mean_interval(v) for k, v in columns.items()}
    assert together.keys() == alone.keys()
    for k in columns:  # the same resamples; sums over a 2-D array may differ in the last bit
        a, b = together[k].value, alone[k].value
        assert (a.method, a.n_tasks) == (b.method, b.n_tasks) and (a.low, a.high) == pytest.approx(
            (b.low, b.high), rel=1e-12
        )
