"""A trial's outcome in the eleven-class vocabulary, plus its reward and graded score.

The rules are a declared precedence: the first class whose rule matches wins (see PRECEDENCE).
Exception names are matched against Harbor's classes (harbor.models.trial.error_policy) in one
table; anything not in the table is `unknown`, charged to nobody.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from harborlight.read.derive.provenance import Valued, derived, inferred, measured, unavailable
from harborlight.read.derive.records import TrialFacts


class Outcome(StrEnum):
    RESOLVED = "resolved"
    SCORED = "scored"
    PATCH_FAILED_TESTS = "patch_failed_tests"
    FAILED_VERIFICATION = "failed_verification"
    PATCH_NOT_APPLIED = "patch_not_applied"
    NO_PATCH = "no_patch"
    AGENT_ERROR = "agent_error"
    RATE_LIMITED = "rate_limited"
    API_ERROR = "api_error"
    SETUP_ERROR = "setup_error"
    UNKNOWN = "unknown"


# Leave the adjusted solve rate's denominator (and pass@k's eligible attempts).
INFRA_OUTCOMES = frozenset({Outcome.RATE_LIMITED, Outcome.API_ERROR, Outcome.SETUP_ERROR})
# A pass or fail verdict: a job with none of these has no solve rate.
VERDICT_OUTCOMES = frozenset(
    {
        Outcome.RESOLVED,
        Outcome.PATCH_FAILED_TESTS,
        Outcome.FAILED_VERIFICATION,
        Outcome.PATCH_NOT_APPLIED,
        Outcome.NO_PATCH,
    }
)

# The first rule that matches decides. Infrastructure first, then a passing or graded verdict,
# then the patch detail, then a failing verdict, then the agent's own failure, then unknown.
PRECEDENCE: tuple[Outcome, ...] = (
    Outcome.SETUP_ERROR,
    Outcome.RATE_LIMITED,
    Outcome.API_ERROR,
    Outcome.RESOLVED,
    Outcome.SCORED,
    Outcome.NO_PATCH,
    Outcome.PATCH_NOT_APPLIED,
    Outcome.PATCH_FAILED_TESTS,
    Outcome.AGENT_ERROR,
    Outcome.FAILED_VERIFICATION,
    Outcome.UNKNOWN,
)

# exception_type -> the class it puts a trial in. Harbor's class names (0.25/0.26) and litellm's.
EXCEPTION_CLASSES: dict[str, Outcome] = {
    **dict.fromkeys(
        (
            "EnvironmentStartTimeoutError",
            "SandboxBuildFailedError",
            "AgentSetupTimeoutError",
            "HealthcheckError",
            "SandboxLikelyOutOfMemoryError",
            "MemoryLimitExceededError",
            "SSHAccessError",
            "GKEExecStreamClosedError",
            "GKEPodNotFoundError",
            "RuntimeRequestError",
            "AddTestsDirError",
            "DownloadVerifierDirError",
            "ServiceOperationsUnsupportedError",
            "VercelScopeError",
            "MissingExtraError",
            "DspyImportError",
        ),
        Outcome.SETUP_ERROR,
    ),
    **dict.fromkeys(("ApiRateLimitError", "RateLimitError"), Outcome.RATE_LIMITED),
    **dict.fromkeys(
        (
            "ApiError",
            "ApiInternalServerError",
            "ApiOverloadedError",
            "ApiConnectionClosedError",
            "ApiResponseStalledError",
            "UnknownApiError",
            "ApiProviderResourceNotFoundError",
            "ApiUsageLimitError",
            "ApiConnectionError",
            "NetworkConnectionError",
            "AgentAuthenticationError",
            "ModelNotFoundError",
            "UnsupportedModelParametersError",
            "APIError",
            "APIConnectionError",
            "APITimeoutError",
            "InternalServerError",
            "ServiceUnavailableError",
            "Timeout",
            "AuthenticationError",
            "PermissionDeniedError",
            "NotFoundError",
            "BadRequestError",
            "UnprocessableEntityError",
            "BudgetExceededError",
        ),
        Outcome.API_ERROR,
    ),
    **dict.fromkeys(
        (
            "NonZeroAgentExitCodeError",
            "AgentTimeoutError",
            "ContextWindowExceededError",
            "OutputTokenExceededError",
            "ContextLengthExceededError",
            "OutputLengthExceededError",
            "AgentSafetyRefusalError",
            "ContentPolicyViolationError",
        ),
        Outcome.AGENT_ERROR,
    ),
    **dict.fromkeys(
        (
            "VerifierTimeoutError",
            "RewardFileNotFoundError",
            "RewardFileEmptyError",
            "VerifierOutputParseError",
        ),
        Outcome.FAILED_VERIFICATION,
    ),
}
CANCELLED = "CancelledError"  # a cancelled trial: unknown, and left out of pass@k and AgentCompass
_RATE_LIMIT_TEXT = re.compile(r"\b429\b|rate[ _-]?limit", re.IGNORECASE)

MAIN_REWARD = "reward"


@dataclass(frozen=True, slots=True)
class TrialOutcome:
    """The verdict fields of one trial row."""

    outcome: Valued[Outcome]
    reward: Valued[float]
    score: Valued[float]
    n_parts: Valued[int]
    exception_type: Valued[str]
    f2p_pass: Valued[int]
    f2p_fail: Valued[int]
    p2p_pass: Valued[int]
    p2p_fail: Valued[int]
    is_regression: Valued[bool]
    patch_exists: Valued[bool]  # SWE-bench: a patch was produced
    patch_applied: Valued[bool]  # SWE-bench: it applied cleanly
    n_rate_limited_retries: Valued[int]


def main_reward(rewards: dict[str, float] | None) -> float | None:
    """`rewards["reward"]`, else the first key's value (Harbor's viewer rule); None without one."""
    if not rewards:
        return None
    value = rewards.get(MAIN_REWARD, next(iter(rewards.values())))
    return float(value) if value is not None and math.isfinite(value) else None


def graded_score(facts: TrialFacts) -> tuple[float | None, int | None]:
    """(score, n_parts): the mean of the graded parts when there are parts, else the reward."""
    if facts.parts:
        return math.fsum(p.score / len(facts.parts) for p in facts.parts), len(facts.parts)
    return main_reward(facts.rewards), None


def _exception_class(facts: TrialFacts) -> tuple[Outcome | None, bool]:
    """(class from the exception, whether a heuristic decided it). None: no exception."""
    name = facts.exception_type
    if not name:
        return None, False
    known = EXCEPTION_CLASSES.get(name)
    if known is not None:
        return known, False
    if facts.n_rate_limited and _RATE_LIMIT_TEXT.search(f"{name} {facts.exception_message or ''}"):
        return Outcome.RATE_LIMITED, True
    return Outcome.UNKNOWN, False


def classify(facts: TrialFacts) -> Valued[Outcome]:
    """The trial's outcome by PRECEDENCE; unavailable while the trial is still running."""
    if facts.is_running:
        return unavailable("trial still running")
    from_exception, heuristic = _exception_class(facts)
    reward = main_reward(facts.rewards)
    score, n_parts = graded_score(facts)
    report = facts.report
    # A reward recorded next to an infrastructure or verifier exception is not a valid verdict.
    reward_valid = from_exception in (None, Outcome.AGENT_ERROR)

    def passes() -> bool:
        if not reward_valid:
            return False
        if report is not None and report.resolved is not None:
            return report.resolved
        return reward is not None and reward >= 1.0 and n_parts is None

    def graded() -> bool:
        return reward_valid and score is not None and (n_parts is not None or 0.0 < score < 1.0)

    def fails_by_verdict() -> bool:
        verdict = reward is not None or (report is not None and report.resolved is not None)
        return (reward_valid and verdict) or from_exception is Outcome.FAILED_VERIFICATION

    rules: dict[Outcome, Callable[[], bool]] = {
        Outcome.SETUP_ERROR: lambda: from_exception is Outcome.SETUP_ERROR,
        Outcome.RATE_LIMITED: lambda: from_exception is Outcome.RATE_LIMITED,
        Outcome.API_ERROR: lambda: from_exception is Outcome.API_ERROR,
        Outcome.RESOLVED: passes,
        Outcome.SCORED: graded,
        Outcome.NO_PATCH: lambda: reward_valid and report is not None and report.patch_exists is False,
        Outcome.PATCH_NOT_APPLIED: lambda: reward_valid and report is not None and report.patch_applied is False,
        Outcome.PATCH_FAILED_TESTS: lambda: (
            reward_valid and report is not None and report.patch_applied is True and report.resolved is False
        ),
        Outcome.AGENT_ERROR: lambda: from_exception is Outcome.AGENT_ERROR,
        Outcome.FAILED_VERIFICATION: fails_by_verdict,
        Outcome.UNKNOWN: lambda: True,
    }
    for outcome in PRECEDENCE:
        if rules[outcome]():
            note = _note(outcome, facts, reward)
            return inferred(outcome, note) if heuristic else derived(outcome, note)
    raise AssertionError("UNKNOWN always matches")  # pragma: no cover


def _note(outcome: Outcome, facts: TrialFacts, reward: float | None) -> str | None:
    if outcome is Outcome.UNKNOWN:
        return f"exception {facts.exception_type}" if facts.exception_type else "no verdict recorded"
    if facts.exception_type and outcome in (Outcome.RESOLVED, Outcome.SCORED):
        return f"verdict kept despite {facts.exception_type}"
    if facts.exception_type:
        return facts.exception_type
    return None if reward is None else f"reward {reward!r}"


def derive_outcome(facts: TrialFacts) -> TrialOutcome:
    """All the verdict fields of a trial row."""
    score, n_parts = graded_score(facts)
    report = facts.report
    r = report
    regression = None if r is None or r.p2p_fail is None else r.p2p_fail > 0
    return TrialOutcome(
        outcome=classify(facts),
        reward=measured(main_reward(facts.rewards)) if facts.rewards else unavailable("no verifier reward"),
        score=(derived(score, "mean of graded parts") if n_parts is not None else measured(score))
        if score is not None
        else unavailable("no reward or graded parts"),
        n_parts=measured(n_parts) if n_parts is not None else unavailable("no graded parts"),
        exception_type=measured(facts.exception_type) if facts.exception_type else unavailable("no exception"),
        f2p_pass=_report_field(r, "f2p_pass"),
        f2p_fail=_report_field(r, "f2p_fail"),
        p2p_pass=_report_field(r, "p2p_pass"),
        p2p_fail=_report_field(r, "p2p_fail"),
        is_regression=derived(regression) if regression is not None else unavailable("no PASS_TO_PASS report"),
        patch_exists=_report_field(r, "patch_exists"),
        patch_applied=_report_field(r, "patch_applied"),
        n_rate_limited_retries=inferred(facts.n_rate_limited)
        if facts.n_rate_limited is not None
        else unavailable("no model-call statuses recorded"),
    )


def _report_field(report: object, name: str) -> Valued[Any]:  # the report's field, whatever its type
    value = getattr(report, name, None) if report is not None else None
    return measured(value) if value is not None else unavailable("no verifier report")
