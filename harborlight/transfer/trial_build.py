"""One trial's Harbor records from its telemetry (pure): TrialConfig, TrialResult, the trajectory,
exception.txt and trial.log.

Lifecycle spans give the timings (the root span and its four phases), rewards (`harbor.reward.<key>`
on the verifier span) and the first `exception` event; agent events give the tokens and cost when
the harness did not report the agent's totals. What the Harbor importer carried on the root span
(configs, ids, the agent's reported result) is used as it was.
"""

import hashlib
import json
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from harborlight.transfer import harbor_spans as H
from harborlight.transfer.atif import Trajectory
from harborlight.transfer.event_content import load_json
from harborlight.transfer.harbor_files import (
    AgentContext,
    AgentInfo,
    ExceptionInfo,
    ModelInfo,
    TimingInfo,
    TrialResult,
    VerifierResult,
)
from harborlight.transfer.telemetry import Event, TrialTelemetry
from harborlight.transfer.trajectory_build import AgentDefaults, build_trajectory

PHASES = ("environment_setup", "agent_setup", "agent_execution", "verifier")
NAMESPACE = uuid.UUID("6f1c5a52-0c1e-4b8e-9d59-0d6c1b8f6a10")


@dataclass(frozen=True)
class TrialRecords:
    name: str
    running: bool
    config: dict[str, Any]
    result: TrialResult  # written unless the trial is running (and no snapshot was asked for)
    trajectory: Trajectory | None
    exception_text: str | None
    job_config: dict[str, Any] | None  # the job's config.json as the importer carried it
    job_started: datetime | None
    n_total_trials: int | None
    log_lines: list[str]
    attempt: int | None = None


def utc(ns: int | None) -> datetime | None:
    if ns is None:
        return None
    return datetime.fromtimestamp(ns // 1_000_000_000, UTC).replace(microsecond=(ns % 1_000_000_000) // 1000)


def _identity(trial: TrialTelemetry) -> dict[str, str]:
    """harbor.* resource attributes of the lifecycle spans, else the agent events' facts."""
    found: dict[str, str] = {}
    for event in trial.events:
        for key, value in event.resource.items():
            if key.startswith("harbor.") and value:
                found.setdefault(key, value)
    first = trial.events[0]
    fallbacks = {
        "harbor.task.name": next((e.task for e in trial.events if e.task), None),
        "harbor.agent.name": next((e.agent for e in trial.events if e.agent), None),
        "harbor.agent.version": next((e.agent_version for e in trial.events if e.agent_version), None),
        "harbor.attempt": str(first.attempt) if first.attempt is not None else None,
    }
    for key, value in fallbacks.items():
        if value and key not in found:
            found[key] = value
    return found


def _finished(trial: TrialTelemetry) -> int | None:
    """When the trial ended: its root span's end; for an agent without a harness, its last event's."""
    if trial.root is not None:
        return trial.root.end_ns
    return None if trial.is_running else max(e.end_ns or e.start_ns for e in trial.events)


def _timing(event: Event | None) -> TimingInfo | None:
    if event is None:
        return None
    return TimingInfo(started_at=utc(event.start_ns), finished_at=utc(event.end_ns))


def _exception(trial: TrialTelemetry) -> ExceptionInfo | None:
    found = [(s.time_ns, s) for e in trial.events if e.is_lifecycle for s in e.span_events if s.name == "exception"]
    if not found:
        return None
    time_ns, first = min(found, key=lambda pair: pair[0])
    a = first.attributes
    return ExceptionInfo(
        exception_type=a.get("exception.type") or "Exception",
        exception_message=a.get("exception.message", ""),
        exception_traceback=a.get("exception.stacktrace", ""),
        occurred_at=utc(time_ns),
    )


def _rewards(verifier: Event | None) -> dict[str, float] | None:
    if verifier is None:
        return None
    rewards = {
        k.removeprefix("harbor.reward."): float(v)
        for k, v in verifier.attributes.items()
        if k.startswith("harbor.reward.")
    }
    return rewards or None


def _agent_result(trial: TrialTelemetry, carried: str | None) -> AgentContext:
    parsed = load_json(carried)
    if isinstance(parsed, dict):
        return AgentContext.model_validate(parsed)
    calls = [e for e in trial.events if e.kind == "llm_request" and not e.is_lifecycle]

    def total(field: str):
        values = [getattr(e, field) for e in calls if getattr(e, field) is not None]
        return sum(values) if values else None

    return AgentContext(
        n_input_tokens=total("input_tokens"),
        n_cache_tokens=total("cached_tokens"),
        n_output_tokens=total("output_tokens"),
        cost_usd=total("cost_usd"),
    )


def _model_info(identity: dict[str, str], root: dict[str, str]) -> ModelInfo | None:
    model = identity.get("harbor.model.name")
    if not model:
        return None
    if (carried := root.get(H.MODEL_PROVIDER)) is not None:  # Harbor's own model info, as it recorded it
        return ModelInfo(name=model, provider=carried or None)
    provider, _, name = model.rpartition("/")
    return ModelInfo(name=name, provider=provider or None)


def _carried(trial: TrialTelemetry) -> dict[str, str]:
    """What the Harbor importer carried: the configs on the trial's first phase, the result's own facts
    on the root span (older imports carried everything there; the root's win)."""
    first = next(
        (
            e.attributes
            for e in trial.events
            if e.is_lifecycle and H.TRIAL_CONFIG in e.attributes and e is not trial.root
        ),
        {},
    )
    return {**first, **(trial.root.attributes if trial.root is not None else {})}


def build_trial(
    trial: TrialTelemetry, job: str, trials_dir: str, job_id: str | None, directory: str | None = None
) -> TrialRecords:
    """`directory`: the trial's directory under trials_dir when it is not its name
    (harborlight/transfer/job_files.py)."""
    root = trial.root
    r = _carried(trial)
    identity = _identity(trial)
    task = identity.get("harbor.task.name") or trial.name.split("__")[0]
    source = identity.get("harbor.task.source")
    agent = AgentInfo(
        name=identity.get("harbor.agent.name") or "unknown",
        version=identity.get("harbor.agent.version") or "unknown",
        model_info=_model_info(identity, r),
    )
    model = identity.get("harbor.model.name")
    config = load_json(r.get(H.TRIAL_CONFIG))
    if not isinstance(config, dict):
        config = {
            "task": {"path": task, **({"source": source} if source else {})},
            "agent": {"name": agent.name, **({"model_name": model} if model else {})},
        }
    config = {**config, "trial_name": trial.name, "trials_dir": trials_dir}
    job_id = job_id or identity.get("harbor.job.id")
    if job_id:
        config["job_id"] = job_id
    phases = {p: trial.lifecycle(f"harbor.{p}") for p in PHASES}
    rewards = _rewards(phases["verifier"])
    exception = _exception(trial)
    task_id = load_json(r.get(H.TASK_ID))
    starts = [e.start_ns for e in trial.events]
    result = TrialResult(
        id=r.get(H.TRIAL_ID) or uuid.uuid5(NAMESPACE, f"{job}/{trial.name}"),
        task_name=task,
        trial_name=trial.name,
        trial_uri=f"file://{trials_dir}/{directory or trial.name}",
        task_id=task_id if isinstance(task_id, dict) else {"path": task},
        source=source,
        task_checksum=r.get(H.TASK_CHECKSUM) or hashlib.sha256(task.encode()).hexdigest(),
        config=config,
        agent_info=agent,
        agent_result=_agent_result(trial, r.get(H.AGENT_RESULT)),
        verifier_result=VerifierResult(rewards=rewards) if rewards is not None else None,
        verifier_environment_mode=r.get(H.VERIFIER_MODE),
        exception_info=exception,
        started_at=utc(root.start_ns if root else min(starts)),
        finished_at=utc(_finished(trial)),
        step_results=load_json(r.get(H.STEP_RESULTS)),
        **{p: _timing(e) for p, e in phases.items()},
    )
    defaults = AgentDefaults(name=agent.name, version=agent.version, model=model, session_id=trial.name)
    job_started = r.get(H.JOB_STARTED)
    total = r.get(H.N_TOTAL_TRIALS)
    return TrialRecords(
        name=trial.name,
        running=trial.is_running,
        config=config,
        result=result,
        trajectory=build_trajectory(trial.events, defaults),
        exception_text=(exception.exception_traceback or f"{exception.exception_type}: {exception.exception_message}\n")
        if exception
        else None,
        job_config=load_json(r.get(H.JOB_CONFIG)),
        job_started=datetime.fromisoformat(job_started) if job_started else None,
        n_total_trials=int(total) if total else None,
        log_lines=_log_lines(trial, result),
        attempt=int(identity["harbor.attempt"]) if identity.get("harbor.attempt", "").isdigit() else None,
    )


def _log_lines(trial: TrialTelemetry, result: TrialResult) -> list[str]:
    """trial.log: the lifecycle as the harness recorded it."""
    lines = []
    for event in trial.events:
        if not event.is_lifecycle:
            continue
        what = event.name.removeprefix("harbor.")
        lines.append(f"{utc(event.start_ns).isoformat()} INFO {what} started")
        for span_event in event.span_events:
            if span_event.name == "exception":
                a = span_event.attributes
                lines.append(
                    f"{utc(span_event.time_ns).isoformat()} ERROR {what}: "
                    f"{a.get('exception.type', '')}: {a.get('exception.message', '')}"
                )
        if event.end_ns is not None:
            lines.append(f"{utc(event.end_ns).isoformat()} INFO {what} finished")
    if result.verifier_result and result.verifier_result.rewards is not None:
        lines.append(f"rewards: {json.dumps(result.verifier_result.rewards, sort_keys=True)}")
    return lines
