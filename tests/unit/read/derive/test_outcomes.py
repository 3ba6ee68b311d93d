"""Trial outcomes: the eleven classes, their precedence, and missing verdicts staying missing."""

from harborlight.read.derive.outcomes import PRECEDENCE, Outcome, classify, derive_outcome
from harborlight.read.derive.provenance import Provenance
from harborlight.read.derive.records import ScorePart, VerifierReport
from tests.unit.read.derive.builders import trial


def test_precedence_declares_all_eleven_classes_once():
    assert sorted(PRECEDENCE) == sorted(Outcome) and len(PRECEDENCE) == 11


def test_reward_one_is_resolved_and_zero_failed_verification():
    assert classify(trial(reward=1.0)).value is Outcome.RESOLVED
    assert classify(trial(reward=0.0)).value is Outcome.FAILED_VERIFICATION


def test_missing_verdict_is_unknown_not_a_failure():
    row = derive_outcome(trial(reward=None))
    assert row.outcome.value is Outcome.UNKNOWN
    assert row.reward.value is None and row.reward.provenance is Provenance.UNAVAILABLE
    zero = derive_outcome(trial(reward=0.0))
    assert zero.reward.value == 0.0 and zero.reward.provenance is Provenance.MEASURED


def test_agent_timeout_keeps_a_passing_reward():
    assert classify(trial(reward=1.0, exception="AgentTimeoutError")).value is Outcome.RESOLVED
    assert classify(trial(reward=0.0, exception="AgentTimeoutError")).value is Outcome.AGENT_ERROR
    assert classify(trial(exception="AgentTimeoutError")).value is Outcome.AGENT_ERROR


def test_infrastructure_exceptions_win_over_a_reward():
    assert classify(trial(reward=1.0, exception="ApiRateLimitError")).value is Outcome.RATE_LIMITED
    assert classify(trial(exception="ApiOverloadedError")).value is Outcome.API_ERROR
    assert classify(trial(exception="EnvironmentStartTimeoutError")).value is Outcome.SETUP_ERROR


def test_verifier_exceptions_are_failed_verification():
    for name in ("VerifierTimeoutError", "RewardFileNotFoundError", "RewardFileEmptyError"):
        assert classify(trial(exception=name)).value is Outcome.FAILED_VERIFICATION


def test_unlisted_exception_is_unknown_and_says_which():
    result = classify(trial(exception="KeyError", reward=1.0))
    assert result.value is Outcome.UNKNOWN and result.note == "exception KeyError"


def test_rate_limit_text_with_recorded_429s_is_inferred():
    result = classify(trial(exception="RuntimeError", exception_message="HTTP 429 Too Many Requests", n_rate_limited=3))
    assert result.value is Outcome.RATE_LIMITED and result.provenance is Provenance.INFERRED
    assert classify(trial(exception="RuntimeError", exception_message="429")).value is Outcome.UNKNOWN


def test_partial_credit_is_scored_and_parts_are_averaged():
    assert classify(trial(reward=0.4)).value is Outcome.SCORED
    row = derive_outcome(trial(parts=(ScorePart(1.0, "a"), ScorePart(0.0, "b"), ScorePart(0.5, "a"))))
    assert row.outcome.value is Outcome.SCORED
    assert row.score.value == 0.5 and row.n_parts.value == 3


def test_patch_report_decides_the_failure_detail():
    def with_report(**kw):
        return classify(trial(reward=0.0, report=VerifierReport(**kw))).value

    assert with_report(resolved=False, patch_exists=False) is Outcome.NO_PATCH
    assert with_report(resolved=False, patch_exists=True, patch_applied=False) is Outcome.PATCH_NOT_APPLIED
    assert with_report(resolved=False, patch_exists=True, patch_applied=True) is Outcome.PATCH_FAILED_TESTS
    assert with_report(resolved=True, patch_exists=True, patch_applied=True) is Outcome.RESOLVED


def test_report_fields_and_regression():
    row = derive_outcome(
        trial(
            reward=0.0,
            report=VerifierReport(resolved=False, patch_applied=True, f2p_pass=2, f2p_fail=1, p2p_pass=9, p2p_fail=1),
        )
    )
    assert (row.f2p_pass.value, row.f2p_fail.value, row.p2p_fail.value) == (2, 1, 1)
    assert row.is_regression.value is True
    assert derive_outcome(trial(reward=1.0)).f2p_pass.value is None


def test_running_trial_has_no_outcome_yet():
    result = classify(trial(running=True))
    assert result.value is None and result.note == "trial still running"


def test_rate_limited_retries_missing_is_not_zero():
    assert derive_outcome(trial(reward=1.0)).n_rate_limited_retries.value is None
    assert derive_outcome(trial(reward=1.0, n_rate_limited=2)).n_rate_limited_retries.value == 2
