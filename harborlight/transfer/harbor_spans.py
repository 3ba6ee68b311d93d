"""One Harbor trial as the telemetry a live harness and agent would have sent: all of it for a
finished trial, what was sent so far for a running one (no ended `harbor.trial` root).

The lifecycle (`harbor.trial`, its four phases, rewards, the exception) is emitted with the harness
helper (harborlight/harbor/harness/), the trajectory as GenAI spans (harborlight/transfer/trajectory_spans.py).
What only the files know (the trial and job configs, ids, the agent's reported totals) rides on the root span
as `harbor.*` attributes. Span ids are derived from the job and trial names, so importing the same
directory twice yields the same bytes, which the store acknowledges once.
"""

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import PurePosixPath

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.id_generator import IdGenerator

from harborlight.harbor.harness import TrialIdentity, trial_spans
from harborlight.read.derive.timestamps import stamp_ns
from harborlight.transfer import atif_attributes
from harborlight.transfer.gold_patch import GOLD_PATCH, gold_patch
from harborlight.transfer.harbor_files import TimingInfo, TrialResult
from harborlight.transfer.harbor_read import HarborTrial
from harborlight.transfer.trajectory_spans import emit_trajectory
from harborlight.transfer.verifier_report import report_attributes

MAX_SPANS_PER_REQUEST = 2_000
SETUP_SPANS = ("harbor.environment_setup", "harbor.agent_setup")

# Root span attributes that carry what only the files know.
TRIAL_ID = "harbor.trial.id"
TRIAL_CONFIG = "harbor.trial.config"
JOB_CONFIG = "harbor.job.config"
JOB_STARTED = "harbor.job.started_at"
TASK_ID = "harbor.task.id"
TASK_CHECKSUM = "harbor.task.checksum"
MODEL_PROVIDER = "harbor.model.provider"
AGENT_RESULT = "harbor.agent.result"
VERIFIER_MODE = "harbor.verifier.environment_mode"
STEP_RESULTS = "harbor.step_results"
N_TOTAL_TRIALS = "harbor.job.n_total_trials"
AGENT_TOTALS = (
    ("harbor.agent.n_input_tokens", "n_input_tokens"),
    ("harbor.agent.n_cache_tokens", "n_cache_tokens"),
    ("harbor.agent.n_output_tokens", "n_output_tokens"),
    ("harbor.agent.cost_usd", "cost_usd"),
)


@dataclass(frozen=True)
class JobContext:
    name: str
    job_id: str | None
    config: dict
    started_at: datetime | None
    n_total_trials: int | None


class _Collect(SpanExporter):
    def __init__(self) -> None:
        self.spans: list[ReadableSpan] = []

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.spans.extend(spans)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        pass


class _Ids(IdGenerator):
    """Ids from a counter hashed with a seed: the same trial always gets the same ids."""

    def __init__(self, seed: str) -> None:
        self._seed = seed.encode()
        self._n = 0

    def _next(self, size: int) -> int:
        self._n += 1
        value = int.from_bytes(hashlib.blake2b(self._seed + self._n.to_bytes(8, "big"), digest_size=size).digest())
        return value or 1

    def generate_span_id(self) -> int:
        return self._next(8)

    def generate_trace_id(self) -> int:
        return self._next(16)


def _ns(moment: datetime | None) -> int | None:
    if moment is None:
        return None
    return int(moment.timestamp()) * 1_000_000_000 + moment.microsecond * 1000


def _json(value) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def identity_of(job: JobContext, trial: HarborTrial, result: TrialResult, attempt: int | None) -> TrialIdentity:
    model = result.agent_info.model_info
    return TrialIdentity(
        job=job.name,
        trial=trial.name,
        task=result.task_name,
        task_source=result.source,
        attempt=attempt,
        job_id=job.job_id,
        agent=result.agent_info.name,
        agent_version=result.agent_info.version,
        model=model.name if model else None,
    )


def _provider(identity: TrialIdentity, job: JobContext, trial: HarborTrial) -> tuple[TracerProvider, _Collect]:
    collected = _Collect()
    # The identity alone: Resource.create's detectors add a random service.instance.id per process and
    # whatever OTEL_RESOURCE_ATTRIBUTES holds, and the same directory must give the same bytes anywhere.
    provider = TracerProvider(
        resource=Resource(identity.resource_attributes()), id_generator=_Ids(f"{job.name}/{trial.name}")
    )
    provider.add_span_processor(SimpleSpanProcessor(collected))
    return provider, collected


def _requests(spans: list[ReadableSpan]) -> list[bytes]:
    return [
        encode_spans(spans[i : i + MAX_SPANS_PER_REQUEST]).SerializeToString()
        for i in range(0, len(spans), MAX_SPANS_PER_REQUEST)
    ]


def trial_requests(job: JobContext, trial: HarborTrial, attempt: int | None) -> list[bytes]:
    """ExportTraceServiceRequest bytes for one trial (a few requests for very long trials)."""
    if trial.result is None:
        return running_requests(job, trial, attempt)
    setup, rest = finished_stages(job, trial, attempt)
    return setup + rest


def finished_stages(job: JobContext, trial: HarborTrial, attempt: int | None) -> tuple[list[bytes], list[bytes]]:
    """A finished trial's requests in the order a live harness sends them: the setup phases, which
    have ended once the agent starts, then the rest. The Harbor plugin sends the first when the
    agent starts (from the result so far: the same spans) and all when the trial ends, so the store
    acknowledges those bytes once (harborlight/harbor/plugin.py)."""
    result = trial.result
    identity = identity_of(job, trial, result, attempt)
    provider, collected = _provider(identity, job, trial)
    phases: dict[str, TimingInfo | None] = {
        "environment_setup": result.environment_setup,
        "agent_setup": result.agent_setup,
        "agent_execution": result.agent_execution,
        "verifier": result.verifier,
    }
    times = [t for p in phases.values() if p for t in (_ns(p.started_at), _ns(p.finished_at)) if t]
    start = _ns(result.started_at) or min(times, default=0) or _ns(result.finished_at) or 1
    end = max([_ns(result.finished_at) or start, *times])
    exception = result.exception_info
    with trial_spans(identity, provider, start_time=start, end_time=end) as spans:
        root = spans.root
        carried = _carried_attributes(job, trial, _provider_of(result))
        for key, value in _root_attributes(result).items():
            root.set_attribute(key, value)
        failed_in = None
        for phase, timing in phases.items():
            if timing is None and not (phase == "verifier" and result.verifier_result is not None):
                continue
            p_start = (_ns(timing.started_at) if timing else None) or end
            p_end = max((_ns(timing.finished_at) if timing else None) or p_start, p_start)
            with spans.phase(phase, start_time=p_start, end_time=p_end) as span:
                for key, value in carried.items():  # on the first phase, sent first (finished_stages)
                    span.set_attribute(key, value)
                carried = {}
                if phase == "agent_execution" and trial.trajectory is not None:
                    tracer = provider.get_tracer(atif_attributes.SCOPE)
                    emit_trajectory(tracer, span, trial.trajectory, p_start)
                if phase == "verifier" and result.verifier_result and result.verifier_result.rewards:
                    for key, value in result.verifier_result.rewards.items():
                        span.set_attribute(f"harbor.reward.{key}", float(value))
                if phase == "verifier":
                    for key, value in report_attributes(trial.verifier_report).items():
                        span.set_attribute(key, value)
                occurred = _ns(exception.occurred_at) if exception else None
                if exception and failed_in is None and occurred is not None and p_start <= occurred <= p_end:
                    failed_in = span
                    spans.exception(
                        exception.exception_type,
                        exception.exception_message,
                        exception.exception_traceback,
                        span=span,
                        time=occurred,
                    )
        if trial.trajectory is not None and result.agent_execution is None:
            emit_trajectory(provider.get_tracer(atif_attributes.SCOPE), root, trial.trajectory, start)
        for key, value in carried.items():  # a trial without phases
            root.set_attribute(key, value)
        if exception and failed_in is None:
            spans.exception(
                exception.exception_type,
                exception.exception_message,
                exception.exception_traceback,
                time=_ns(exception.occurred_at),
            )
    provider.shutdown()
    setup = [s for s in collected.spans if s.name in SETUP_SPANS]
    return _requests(setup), _requests([s for s in collected.spans if s.name not in SETUP_SPANS])


def trial_identity(job: JobContext, trial: HarborTrial, attempt: int | None) -> TrialIdentity:
    if trial.result is None:
        return running_identity(job, trial, attempt)
    return identity_of(job, trial, trial.result, attempt)


def running_identity(job: JobContext, trial: HarborTrial, attempt: int | None) -> TrialIdentity:
    """Who a running trial is, from its config.json (and the trajectory's agent version)."""
    task, agent, model = config_facts(trial)
    return TrialIdentity(
        job=job.name,
        trial=trial.name,
        task=task,
        task_source=(trial.config.get("task") or {}).get("source"),
        attempt=attempt,
        job_id=trial.config.get("job_id") or job.job_id,
        agent=agent,
        agent_version=trial.trajectory.agent.version if trial.trajectory else None,
        model=model,
    )


def config_facts(trial: HarborTrial) -> tuple[str, str | None, str | None]:
    """(task name, agent name, model name without its provider) from a trial's config.json."""
    task = trial.config.get("task") or {}
    agent = trial.config.get("agent") or {}
    task_name = (
        PurePosixPath(task["path"]).name if task.get("path") else str(task.get("name") or "").rsplit("/", 1)[-1]
    ) or trial.name.split("__")[0]
    model = agent.get("model_name")
    return task_name, agent.get("name"), model.rpartition("/")[2] if model else None


def running_requests(job: JobContext, trial: HarborTrial, attempt: int | None) -> list[bytes]:
    """What a live harness had sent of a running trial: the phases that ended, none of the open ones
    and not the root. The evidence is the trajectory: its first step means both setup phases ended
    (their boundary is not recorded: environment_setup takes the time from config.json's write,
    agent_setup is empty) and the agent is executing, its steps sent as they ended; a file under
    verifier/ means the agent phase ended at its last step too. No trajectory step: nothing ended
    yet, nothing to send."""
    trajectory = trial.trajectory
    times = [t for step in trajectory.steps if (t := stamp_ns(step.timestamp).value)] if trajectory else []
    if trajectory is None or not times:
        return []
    identity = running_identity(job, trial, attempt)
    provider, collected = _provider(identity, job, trial)
    agent_start = min(times)
    start = min(trial.started_ns or agent_start, agent_start)
    with trial_spans(identity, provider, start_time=start) as spans:
        with spans.phase("environment_setup", start_time=start, end_time=agent_start) as span:
            model = (trial.config.get("agent") or {}).get("model_name") or ""
            for key, value in _carried_attributes(job, trial, model.rpartition("/")[0] or None).items():
                span.set_attribute(key, value)
        with spans.phase("agent_setup", start_time=agent_start, end_time=agent_start):
            pass
        execution = spans.tracer.start_span(
            "harbor.agent_execution", context=trace.set_span_in_context(spans.root), start_time=agent_start
        )
        end = emit_trajectory(provider.get_tracer(atif_attributes.SCOPE), execution, trajectory, agent_start)
        if trial.verifier_started:
            execution.end(end_time=end)
        sent = list(collected.spans)  # before the root ends
    provider.shutdown()
    return _requests(sent)


def _carried_attributes(job: JobContext, trial: HarborTrial, model_provider: str | None) -> dict:
    """What only the files know of the trial and its job, on its first phase: a live harness sends
    that phase first, long before the root ends (a running trial's root has not)."""
    values = {
        TRIAL_CONFIG: _json(trial.config),
        JOB_CONFIG: _json(job.config),
        JOB_STARTED: job.started_at.isoformat() if job.started_at else None,
        N_TOTAL_TRIALS: job.n_total_trials,
        MODEL_PROVIDER: model_provider,
        GOLD_PATCH: gold_patch(trial.config),
    }
    return {k: v for k, v in values.items() if v is not None}


def _provider_of(result: TrialResult) -> str | None:
    """Harbor's recorded provider; "" where it recorded a model and no provider."""
    model = result.agent_info.model_info
    return (model.provider or "") if model else None


def _root_attributes(result: TrialResult) -> dict:
    values = {
        TRIAL_ID: str(result.id),
        TASK_ID: _json(result.task_id),
        TASK_CHECKSUM: result.task_checksum,
        AGENT_RESULT: (_json(result.agent_result.model_dump(mode="json")) if result.agent_result is not None else None),
        VERIFIER_MODE: result.verifier_environment_mode,
        STEP_RESULTS: _json(result.step_results) if result.step_results is not None else None,
    }
    if result.agent_result is not None:
        for attribute, field in AGENT_TOTALS:
            values[attribute] = getattr(result.agent_result, field)
    return {k: v for k, v in values.items() if v is not None}
