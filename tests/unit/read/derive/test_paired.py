"""The paired comparison of two jobs on matched tasks, checked against independent computations:
statsmodels' exact McNemar test and sign test, scipy's binomial test and scipy's bootstrap."""

import random

import numpy as np
import pytest
from scipy.stats import binomtest, bootstrap
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.descriptivestats import sign_test

from harborlight.read.derive.compare import compare
from harborlight.read.derive.paired import exact_sign_test
from harborlight.read.derive.records import ScorePart
from tests.unit.read.derive.builders import trial

MC_TOLERANCE = 0.02  # two independent bootstraps of the same differences agree to Monte Carlo error


def scipy_interval(differences) -> tuple[float, float]:
    ci = bootstrap(
        (np.array(differences, float),),
        np.mean,
        n_resamples=20_000,
        method="percentile",
        confidence_level=0.95,
        random_state=np.random.default_rng(1),
    ).confidence_interval
    return ci.low, ci.high


def binary_jobs(solved_a: list[bool], solved_b: list[bool]) -> dict:
    return {
        "A": [trial(f"t{i}", job="A", reward=float(v)) for i, v in enumerate(solved_a)],
        "B": [trial(f"t{i}", job="B", reward=float(v)) for i, v in enumerate(solved_b)],
    }


def test_the_exact_sign_test_is_mcnemars_exact_test_and_a_binomial_test():
    for better in range(0, 13):
        for worse in range(0, 13):
            table = [[7, worse], [better, 5]]  # rows: baseline pass/fail; columns: other pass/fail
            assert exact_sign_test(better, worse) == pytest.approx(mcnemar(table, exact=True).pvalue, abs=1e-12)
            if better + worse:
                assert exact_sign_test(better, worse) == pytest.approx(
                    binomtest(better, better + worse, 0.5).pvalue, abs=1e-12
                )


def test_a_clear_gain_on_pass_fail_tasks_is_called_better_with_mcnemar():
    rng = random.Random(4)
    a = [rng.random() < 0.4 for _ in range(200)]
    b = [x or rng.random() < 0.25 for x in a]  # B keeps A's solves and adds some
    b[0], a[0] = False, True  # and loses one
    p = compare(binary_jobs(a, b)).paired["B"]
    both = sum(x and y for x, y in zip(a, b, strict=True))
    gained = sum(y and not x for x, y in zip(a, b, strict=True))
    lost = sum(x and not y for x, y in zip(a, b, strict=True))
    table = [[both, lost], [gained, 200 - both - gained - lost]]
    assert p.measure == "solved" and p.test == "mcnemar_exact" and p.n_tasks.value == 200
    assert (p.n_better.value, p.n_worse.value) == (gained, lost)
    assert p.p_value.value == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-9)
    assert p.mean_difference.value == pytest.approx((gained - lost) / 200)
    ci = p.difference_ci.value
    assert ci.method == "bootstrap" and ci.n_tasks == 200
    differences = [float(y) - float(x) for x, y in zip(a, b, strict=True)]
    assert (ci.low, ci.high) == pytest.approx(scipy_interval(differences), abs=MC_TOLERANCE)
    assert [t.task for t in p.worse_tasks] == ["t0"] and len(p.better_tasks) == gained
    assert p.verdict == (
        f"B is better than A on these 200 tasks: solve rate {(gained - lost) / 2:+.1f} points, "
        f"95% CI {ci.low * 100:+.1f} to {ci.high * 100:+.1f} points "
        f"(McNemar exact p = {p.p_value.value:.2g})"
    )


def test_noise_is_no_detectable_difference():
    rng = random.Random(8)
    a = [rng.random() < 0.5 for _ in range(60)]
    b = list(a)
    for i in (3, 9, 15):  # three flips each way
        b[i] = not b[i]
    for i in (4, 10, 16):
        a[i], b[i] = True, False
    for i in (5, 11, 17):
        a[i], b[i] = False, True
    p = compare(binary_jobs(a, b)).paired["B"]
    assert p.verdict.startswith("no detectable difference between B and A on these 60 tasks: ")
    assert p.difference_ci.value.low < 0 < p.difference_ci.value.high and p.p_value.value > 0.05


def test_graded_jobs_use_the_sign_test_on_per_task_scores():
    rng = random.Random(6)
    base = [rng.random() for _ in range(40)]
    other = [min(1.0, s + rng.gauss(0.05, 0.08)) for s in base]
    jobs = {
        "A": [trial(f"t{i}", job="A", reward=0.5, parts=(ScorePart(s),)) for i, s in enumerate(base)],
        "B": [trial(f"t{i}", job="B", reward=0.5, parts=(ScorePart(s),)) for i, s in enumerate(other)],
    }
    p = compare(jobs).paired["B"]
    differences = [y - x for x, y in zip(base, other, strict=True)]
    assert p.measure == "score" and p.test == "sign"
    _, theirs = sign_test(np.array(differences), mu0=0)
    assert p.p_value.value == pytest.approx(theirs, rel=1e-9)
    assert p.mean_difference.value == pytest.approx(np.mean(differences))
    assert (p.difference_ci.value.low, p.difference_ci.value.high) == pytest.approx(
        scipy_interval(differences), abs=MC_TOLERANCE
    )
    assert p.verdict.startswith("B is better than A on these 40 tasks: score +0.0")


def test_infrastructure_failures_leave_the_task_out_and_attempts_average_per_task():
    a = [trial(f"t{i}", job="A", reward=float(i % 2)) for i in range(12)]
    b = [trial(f"t{i}", job="B", reward=float(i % 2)) for i in range(11)]
    b.append(trial("t11", job="B", exception="EnvironmentStartTimeoutError"))  # no value for B on t11
    a += [trial("t0", job="A", attempt=2, reward=1.0)]  # A solves t0 once in two attempts: 0.5
    p = compare({"A": a, "B": b}).paired["B"]
    assert (p.n_tasks.value, p.n_excluded.value) == (11, 1)
    assert p.test == "sign"  # a solve fraction of 0.5: not a pass/fail pair
    assert [(t.task, t.baseline, t.value) for t in p.worse_tasks] == [("t0", 0.5, 0.0)]
    assert p.mean_difference.value == pytest.approx(-0.5 / 11)


def test_few_tasks_have_no_interval_and_the_exact_test_alone_decides():
    p = compare(binary_jobs([False] * 4, [True] * 4)).paired["B"]
    assert p.difference_ci.value is None and "needs at least 10" in p.difference_ci.note
    assert p.p_value.value == 0.125  # four flips of four: still chance at 5%
    assert p.verdict == (
        "no detectable difference between B and A on these 4 tasks: solve rate +100.0 points, "
        "no interval: 4 task(s); a bootstrap over tasks needs at least 10 (McNemar exact p = 0.12)"
    )
    p = compare(binary_jobs([False] * 7, [True] * 7)).paired["B"]
    assert p.p_value.value == pytest.approx(2 / 2**7) and p.verdict.startswith("B is better than A on these 7")


def test_three_jobs_each_compare_with_the_baseline():
    c = compare(
        {**binary_jobs([True] * 12, [False] * 12), "C": [trial(f"t{i}", job="C", reward=1.0) for i in range(12)]}
    )
    assert set(c.paired) == {"B", "C"}
    lost = c.paired["B"]  # every task lost: nothing for a bootstrap to vary, the exact test is clear
    assert lost.n_worse.value == 12 and lost.p_value.value == pytest.approx(2 / 2**12)
    assert lost.difference_ci.value is None and "same value (-1)" in lost.difference_ci.note
    assert lost.verdict.startswith("B is worse than A on these 12 tasks: solve rate -100.0 points")
    same = c.paired["C"]
    assert same.n_tied.value == 12 and same.p_value.value == 1.0
    assert same.verdict.startswith("no detectable difference between C and A on these 12 tasks: solve rate +0.0")
