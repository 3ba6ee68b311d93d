"""One finished Harbor trial as the telemetry a live harness and agent would have sent.

The lifecycle (`harbor.trial`, its four phases, rewards, the exception) is emitted with the harness
helper (harness/), the trajectory as GenAI spans (importers/trajectory_spans.py). What only the
files know (the trial and job configs, ids, the agent's reported totals) rides on the root span as
`harbor.*` attributes. Span ids are derived from the job and trial names, so importing the same
directory twice yields the same bytes, which the store acknowledges once.
"""

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.id_generator import IdGenerator

from harness import TrialIdentity, trial_spans
from importers import atif_attributes
from importers.harbor_files import TimingInfo, TrialResult
from importers.harbor_read import HarborTrial
from importers.trajectory_spans import emit_trajectory

MAX_SPANS_PER_REQUEST = 2_000

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
AGENT_TOTALS = (("harbor.agent.n_input_tokens", "n_input_tokens"), ("harbor.agent.n_cache_tokens", "n_cache_tokens"),
                ("harbor.agent.n_output_tokens", "n_output_tokens"), ("harbor.agent.cost_usd", "cost_usd"))


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
    return TrialIdentity(job=job.name, trial=trial.name, task=result.task_name, task_source=result.source,
                         attempt=attempt, job_id=job.job_id, agent=result.agent_info.name,
                         agent_version=result.agent_info.version, model=model.name if model else None)


def trial_requests(job: JobContext, trial: HarborTrial, attempt: int | None) -> list[bytes]:
    """ExportTraceServiceRequest bytes for one finished trial (a few requests for very long trials)."""
    result = trial.result
    assert result is not None, "running trials have no recorded telemetry to import"
    identity = identity_of(job, trial, result, attempt)
    collected = _Collect()
    provider = TracerProvider(resource=Resource.create(identity.resource_attributes()),
                              id_generator=_Ids(f"{job.name}/{trial.name}"))
    provider.add_span_processor(SimpleSpanProcessor(collected))
    phases: dict[str, TimingInfo | None] = {
        "environment_setup": result.environment_setup, "agent_setup": result.agent_setup,
        "agent_execution": result.agent_execution, "verifier": result.verifier}
    times = [t for p in phases.values() if p for t in (_ns(p.started_at), _ns(p.finished_at)) if t]
    start = _ns(result.started_at) or min(times, default=0) or _ns(result.finished_at) or 1
    end = max([_ns(result.finished_at) or start, *times])
    exception = result.exception_info
    with trial_spans(identity, provider, start_time=start, end_time=end) as spans:
        root = spans.root
        for key, value in _root_attributes(job, trial, result).items():
            root.set_attribute(key, value)
        failed_in = None
        for phase, timing in phases.items():
            if timing is None and not (phase == "verifier" and result.verifier_result is not None):
                continue
            p_start = (_ns(timing.started_at) if timing else None) or end
            p_end = max((_ns(timing.finished_at) if timing else None) or p_start, p_start)
            with spans.phase(phase, start_time=p_start, end_time=p_end) as span:
                if phase == "agent_execution" and trial.trajectory is not None:
                    tracer = provider.get_tracer(atif_attributes.SCOPE)
                    emit_trajectory(tracer, span, trial.trajectory, p_start)
                if phase == "verifier" and result.verifier_result and result.verifier_result.rewards:
                    for key, value in result.verifier_result.rewards.items():
                        span.set_attribute(f"harbor.reward.{key}", float(value))
                occurred = _ns(exception.occurred_at) if exception else None
                if exception and failed_in is None and occurred is not None and p_start <= occurred <= p_end:
                    failed_in = span
                    spans.exception(exception.exception_type, exception.exception_message,
                                    exception.exception_traceback, span=span, time=occurred)
        if trial.trajectory is not None and result.agent_execution is None:
            emit_trajectory(provider.get_tracer(atif_attributes.SCOPE), root, trial.trajectory, start)
        if exception and failed_in is None:
            spans.exception(exception.exception_type, exception.exception_message, exception.exception_traceback,
                            time=_ns(exception.occurred_at))
    provider.shutdown()
    ordered = collected.spans
    return [encode_spans(ordered[i:i + MAX_SPANS_PER_REQUEST]).SerializeToString()
            for i in range(0, len(ordered), MAX_SPANS_PER_REQUEST)]


def _root_attributes(job: JobContext, trial: HarborTrial, result: TrialResult) -> dict:
    model = result.agent_info.model_info
    values = {
        TRIAL_ID: str(result.id), TRIAL_CONFIG: _json(trial.config), JOB_CONFIG: _json(job.config),
        JOB_STARTED: job.started_at.isoformat() if job.started_at else None,
        N_TOTAL_TRIALS: job.n_total_trials, TASK_ID: _json(result.task_id), TASK_CHECKSUM: result.task_checksum,
        MODEL_PROVIDER: model.provider if model else None,
        AGENT_RESULT: (_json(result.agent_result.model_dump(mode="json"))
                       if result.agent_result is not None else None),
        VERIFIER_MODE: result.verifier_environment_mode,
        STEP_RESULTS: _json(result.step_results) if result.step_results is not None else None,
    }
    if result.agent_result is not None:
        for attribute, field in AGENT_TOTALS:
            values[attribute] = getattr(result.agent_result, field)
    return {k: v for k, v in values.items() if v is not None}
