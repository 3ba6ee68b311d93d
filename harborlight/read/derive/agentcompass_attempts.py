"""Trials as AgentCompass attempts: trial = attempt, task = unit, correct = resolved, score = reward.

Each finished trial becomes one attempt record with a status, its metric observations and its
issues, exactly in the shape AgentCompass 1.0.1 reduces (`attempt.metrics`, `attempt.issues`).
Issue severities follow AgentCompass's own runner: infrastructure failures are FATAL (they
invalidate the task and mark the report evaluation_failed), run and evaluation failures are ERROR.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from harborlight.read.derive.outcomes import (
    CANCELLED,
    EXCEPTION_CLASSES,
    VERDICT_OUTCOMES,
    Outcome,
    classify,
    graded_score,
    main_reward,
)
from harborlight.read.derive.records import TrialFacts


class Kind(StrEnum):
    BINARY = "binary_success"
    SCALAR = "scalar"


@dataclass(frozen=True, slots=True)
class MetricDecl:
    """One metric of the contract (AgentCompass `make_metric_contract` semantics)."""

    id: str
    kind: Kind
    label: str
    primary: bool


CONTRACTS: dict[str, tuple[MetricDecl, ...]] = {
    "correct": (
        MetricDecl("correct", Kind.BINARY, "Correct", True),
        MetricDecl("reward", Kind.SCALAR, "Reward", False),
    ),
    "score": (MetricDecl("score", Kind.SCALAR, "Score", True),),
}


@dataclass(frozen=True, slots=True)
class Issue:
    severity: str  # fatal | error | warning
    phase: str  # setup | run | collect | evaluate | cleanup
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class Attempt:
    status: str  # completed | run_error | eval_error | ...
    metrics: dict[str, bool | float]
    issues: tuple[Issue, ...]


@dataclass(frozen=True, slots=True)
class TaskAttempts:
    task_id: str
    category: str | None
    attempts: dict[int, Attempt]  # attempt index (1-based) -> attempt


# outcome class of the exception -> (status, severity, phase, code)
_ISSUES: dict[Outcome, tuple[str, str, str, str]] = {
    Outcome.SETUP_ERROR: ("run_error", "fatal", "setup", "setup_failed"),
    Outcome.RATE_LIMITED: ("run_error", "fatal", "run", "model_failed"),
    Outcome.API_ERROR: ("run_error", "fatal", "run", "model_failed"),
    Outcome.AGENT_ERROR: ("run_error", "error", "run", "run_failed"),
    Outcome.FAILED_VERIFICATION: ("eval_error", "error", "evaluate", "evaluate_failed"),
    Outcome.UNKNOWN: ("run_error", "error", "run", "execution_failed"),
}
_API_TIMEOUT = ("run_error", "error", "run", "model_timeout")  # AgentCompass: model timeouts are ERROR


def primary_for(trials: Sequence[TrialFacts]) -> str:
    """ "score" when any finished trial is graded (scored), else "correct"."""
    scored = any(classify(t).value is Outcome.SCORED for t in trials if not t.is_running)
    return "score" if scored else "correct"


def _issue(trial: TrialFacts) -> tuple[str, tuple[Issue, ...]]:
    name = trial.exception_type
    if not name:
        return "completed", ()
    cls = EXCEPTION_CLASSES.get(name, Outcome.UNKNOWN)
    rule = _ISSUES[cls]
    if cls is Outcome.API_ERROR and ("Timeout" in name or "Stalled" in name):
        rule = _API_TIMEOUT
    status, severity, phase, code = rule
    message = f"{name}: {trial.exception_message}" if trial.exception_message else name
    return status, (Issue(severity, phase, code, message.splitlines()[0] or name),)


def observations(trial: TrialFacts, primary: str) -> dict[str, bool | float]:
    """The metrics an attempt carries. Only a valid verdict is observed; never a made-up 0."""
    outcome = classify(trial).value
    cls = EXCEPTION_CLASSES.get(trial.exception_type, Outcome.UNKNOWN) if trial.exception_type else None
    if cls not in (None, Outcome.AGENT_ERROR):
        return {}
    reward = main_reward(trial.rewards)
    if primary == "score":
        score, _ = graded_score(trial)
        return {} if score is None else {"score": score}
    out: dict[str, bool | float] = {}
    if outcome in VERDICT_OUTCOMES or (outcome is Outcome.AGENT_ERROR and reward is not None):
        out["correct"] = outcome is Outcome.RESOLVED
    if reward is not None:
        out["reward"] = reward
    return out


def to_attempt(trial: TrialFacts, primary: str) -> Attempt:
    status, issues = _issue(trial)
    return Attempt(status, observations(trial, primary), issues)


def _task_ids(trials: Sequence[TrialFacts]) -> dict[tuple[str | None, str], str]:
    keys = {(t.source, t.task or t.trial) for t in trials}
    names = [task for _, task in keys]
    return {(src, task): task if names.count(task) == 1 or not src else f"{src}/{task}" for src, task in keys}


def task_attempts(trials: Sequence[TrialFacts], primary: str) -> list[TaskAttempts]:
    """One record per unit, in task-id order. Running and cancelled trials are not attempts yet
    (the attempt is missing); when two trials claim the same attempt index, the later one (a
    retry) replaces the earlier. Trials without an index are numbered by start time."""
    done = [t for t in trials if not t.is_running and t.exception_type != CANCELLED]
    ids = _task_ids(trials)
    grouped: dict[str, list[TrialFacts]] = {}
    for t in done:
        grouped.setdefault(ids[(t.source, t.task or t.trial)], []).append(t)
    categories = {ids[(t.source, t.task or t.trial)]: t.category for t in trials if t.category is not None}
    for t in trials:  # units whose only trials are running still count as tasks
        grouped.setdefault(ids[(t.source, t.task or t.trial)], [])
    out = []
    for task_id in sorted(grouped):
        ordered = sorted(grouped[task_id], key=lambda t: (t.started_at is None, t.started_at or 0.0, t.trial))
        numbered = ordered if all(t.attempt is not None for t in ordered) else None
        attempts: dict[int, Attempt] = {}
        for position, t in enumerate(ordered, start=1):
            index = t.attempt if numbered is not None and t.attempt is not None else position
            attempts[index] = to_attempt(t, primary)
        out.append(TaskAttempts(task_id, categories.get(task_id), dict(sorted(attempts.items()))))
    return out


def plan_k(tasks: Sequence[TaskAttempts], planned: int | None = None) -> int:
    """k: the planned attempts per task when known, else the highest attempt index seen."""
    seen = max((max(t.attempts, default=1) for t in tasks), default=1)
    return max(planned or 1, seen)


def to_details(tasks: Sequence[TaskAttempts], *, k: int, strategy: str) -> list[dict[str, object]]:
    """AgentCompass's in-memory task-detail records (what `aggregate_metric_report` takes)."""
    return [
        {
            "task_id": t.task_id,
            "category": t.category,
            "attempt_plan": {"k": k, "strategy": strategy},
            "attempts": {
                str(i): {
                    "status": a.status,
                    "metrics": dict(a.metrics),
                    "issues": [
                        {"severity": s.severity, "phase": s.phase, "code": s.code, "message": s.message}
                        for s in a.issues
                    ],
                }
                for i, a in t.attempts.items()
            },
        }
        for t in tasks
    ]
