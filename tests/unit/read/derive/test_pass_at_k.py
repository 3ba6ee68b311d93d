"""pass@k and pass^k as the field guide defines them."""

import math

import pytest

from harborlight.read.derive.pass_at_k import derive_pass_at_k, pass_at, pass_hat
from tests.unit.read.derive.builders import trial


def attempts(task, verdicts):
    return [trial(task, attempt=i, reward=float(v)) for i, v in enumerate(verdicts, start=1)]


def test_estimators_match_the_closed_forms():
    for n in range(1, 9):
        for c in range(n + 1):
            for k in range(1, n + 1):
                assert pass_at(n, c, k) == pytest.approx(1 - math.comb(n - c, k) / math.comb(n, k))
                assert pass_hat(n, c, k) == pytest.approx(math.comb(c, k) / math.comb(n, k))


def test_uneven_attempt_counts_use_the_smallest():
    trials = attempts("a", [1, 0, 0, 1, 0]) + attempts("b", [0, 0, 1])
    r = derive_pass_at_k(trials)
    assert r.min_attempts.value == 3 and sorted(r.pass_at_k.value) == [2, 3]
    assert r.pass_at_k.value[2] == pytest.approx(((1 - 3 / 10) + (1 - 1 / 3)) / 2)
    assert r.pass_hat_k.value[2] == pytest.approx((1 / 10 + 0) / 2)
    assert r.pass_hat_k.value[3] == 0.0


def test_no_series_below_two_attempts():
    r = derive_pass_at_k(attempts("a", [1, 1]) + attempts("b", [1]))
    assert r.pass_at_k.value is None and r.min_attempts.value == 1
    assert "below two" in r.pass_at_k.note


def test_units_with_an_infra_exception_or_missing_verdict_are_excluded():
    trials = (
        attempts("a", [1, 0])
        + [trial("b", attempt=1, reward=1.0), trial("b", attempt=2, exception="ApiError")]
        + [trial("c", attempt=1, reward=0.0), trial("c", attempt=2)]
    )
    r = derive_pass_at_k(trials)
    assert r.n_units.value == 1 and r.n_excluded_units.value == 2
    assert r.pass_at_k.value == {2: 1.0}


def test_agent_timeout_with_a_verdict_counts_as_an_attempt():
    trials = [trial("a", attempt=1, reward=0.0, exception="AgentTimeoutError"), trial("a", attempt=2, reward=1.0)]
    assert derive_pass_at_k(trials).pass_hat_k.value == {2: 0.0}


def test_running_attempts_are_not_evidence_yet():
    trials = attempts("a", [1, 1]) + [trial("a", attempt=3, running=True)]
    assert derive_pass_at_k(trials).min_attempts.value == 2


def test_agent_error_with_a_patch_verdict_counts_as_a_failed_attempt():
    from harborlight.read.derive.records import VerifierReport

    no_patch = VerifierReport(resolved=False, patch_exists=False)
    trials = [
        trial("a", attempt=1, reward=0.0, exception="AgentTimeoutError", report=no_patch),
        trial("a", attempt=2, reward=1.0),
    ]
    r = derive_pass_at_k(trials)
    assert r.n_units.value == 1 and r.pass_at_k.value == {2: 1.0} and r.pass_hat_k.value == {2: 0.0}
