"""Trial rows, job rows and behaviour rows as the API answers them (JSON-ready dicts, pure).

Every derived field is a {"value", "provenance", "note"} triple; identity fields are plain values.
"""

from collections.abc import Callable, Sequence
from typing import Any

from harborlight.read.derive.behavior import Behavior
from harborlight.read.derive.job_metrics import derive_job
from harborlight.read.derive.outcomes import derive_outcome
from harborlight.read.derive.pass_at_k import derive_pass_at_k
from harborlight.read.derive.provenance import Valued, derived, measured, unavailable, valued_fields_json
from harborlight.read.derive.records import JobFacts, LoadedTrial, TrialFacts
from harborlight.read.derive.timings import derive_timings
from harborlight.read.derive.trajectory_steps import StepDuration


def _recorded(
    value: int | float | None, what: str, provenance: Callable[[float], Valued[float]] = measured
) -> dict[str, object]:
    v: Valued[float] = provenance(value) if value is not None else unavailable(f"no {what} recorded")
    return v.to_json()


def trial_row(loaded: LoadedTrial) -> dict[str, Any]:
    f = loaded.facts
    return {
        "job": f.job,
        "trial": f.trial,
        "task": f.task,
        "source": f.source,
        "attempt": f.attempt,
        "agent": f.agent_name,
        "agent_version": f.agent_version,
        "model": f.model,
        "category": f.category,
        "is_running": f.is_running,
        "started_at": f.started_at,
        "finished_at": f.finished_at,
        "first_seen": loaded.first_seen,
        "last_seen": loaded.last_seen,
        "n_events": loaded.n_events,
        **valued_fields_json(derive_outcome(f)),
        **valued_fields_json(derive_timings(f)),
        "n_input_tokens": _recorded(f.n_input_tokens, "input tokens", derived),
        "n_cache_tokens": _recorded(f.n_cache_tokens, "cache tokens", derived),
        "n_output_tokens": _recorded(f.n_output_tokens, "output tokens", derived),
        "cost_usd": _recorded(f.cost_usd, "cost", derived),
        "n_steps": _recorded(f.n_steps if f.n_model_calls else None, "model calls", derived),
        "n_tool_calls": _recorded(
            f.n_tool_calls if f.n_model_calls or f.n_tool_calls else None, "agent telemetry", measured
        ),
    }


def job_row(job: str, trials: Sequence[TrialFacts]) -> dict[str, Any]:
    """The job's metrics, plus pass@k / pass^k."""
    planned = max((t.job_n_planned for t in trials if t.job_n_planned is not None), default=None)
    row = valued_fields_json(derive_job(trials, JobFacts(job=job, n_planned=planned)))
    row["pass_at_k"] = valued_fields_json(derive_pass_at_k(trials))
    return row


def behavior_row(
    job: str,
    trial: str,
    behavior: Behavior,
    *,
    n_calls: int,
    n_model_calls: int,
    truncated: bool,
    calls: Sequence[dict[str, Any]],
    last_agent_message: Valued[str],
    steps: Valued[tuple[StepDuration, ...]],
) -> dict[str, Any]:
    """`steps`: the trajectory's steps, each with its `dur` triple (harborlight/read/derive/trajectory_steps.py)."""
    listed = (
        None
        if steps.value is None
        else [
            {"step_id": s.step_id, "source": s.source, "timestamp": s.timestamp, "dur": s.dur.to_json()}
            for s in steps.value
        ]
    )
    return {
        "job": job,
        "trial": trial,
        "n_calls": n_calls,
        "n_model_calls": n_model_calls,
        "truncated": truncated,
        **valued_fields_json(behavior),
        "last_agent_message": last_agent_message.to_json(),
        "steps": {"value": listed, "provenance": steps.provenance.value, "note": steps.note},
        "calls": list(calls),
    }
