"""The trial lifecycle as spans: a root `harbor.trial` with children `harbor.environment_setup`,
`harbor.agent_setup`, `harbor.agent_execution` and `harbor.verifier`; rewards as
`harbor.reward.<key>` attributes on the verifier span; failures as standard `exception` events.

Live harnesses use the context managers (times are measured); importers pass the recorded
start/end times (nanoseconds since the epoch) of a finished trial.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from opentelemetry import trace
from opentelemetry.propagate import inject
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter
from opentelemetry.trace import Span, Status, StatusCode

from harborlight.harbor.harness.identity import TrialIdentity

PHASES = ("environment_setup", "agent_setup", "agent_execution", "verifier")
SCOPE = "harborlight.harness"


@dataclass
class TrialSpans:
    """An open `harbor.trial` span and the tracer its phases are made with."""

    tracer: trace.Tracer
    root: Span

    @contextmanager
    def phase(self, phase: str, start_time: int | None = None, end_time: int | None = None) -> Iterator[Span]:
        """A child phase span; an exception raised inside is recorded as an `exception` event."""
        if phase not in PHASES:
            raise ValueError(f"phase must be one of {', '.join(PHASES)}")
        context = trace.set_span_in_context(self.root)
        span = self.tracer.start_span(f"harbor.{phase}", context=context, start_time=start_time)
        try:
            with trace.use_span(span, end_on_exit=False, record_exception=True, set_status_on_exception=True):
                yield span
        finally:
            span.end(end_time=end_time)

    @contextmanager
    def verifier(self, start_time: int | None = None, end_time: int | None = None) -> Iterator["Verifier"]:
        with self.phase("verifier", start_time, end_time) as span:
            yield Verifier(span)

    def traceparent(self, span: Span | None = None) -> dict[str, str]:
        """W3C trace context of `span` (default: the trial) for the agent's environment
        (TRACEPARENT), so the agent's own spans nest under the trial."""
        carrier: dict[str, str] = {}
        inject(carrier, context=trace.set_span_in_context(span or self.root))
        return {key.upper(): value for key, value in carrier.items()}

    def exception(
        self, exc_type: str, message: str, stacktrace: str = "", span: Span | None = None, time: int | None = None
    ) -> None:
        """An `exception` event from a recorded failure (an importer has no live exception object)."""
        target = span or self.root
        target.add_event(
            "exception",
            {"exception.type": exc_type, "exception.message": message, "exception.stacktrace": stacktrace},
            timestamp=time,
        )
        target.set_status(Status(StatusCode.ERROR, message))


@dataclass
class Verifier:
    span: Span

    def reward(self, key: str, value: float) -> None:
        """`harbor.reward.<key>`; `reward` is the main one."""
        self.span.set_attribute(f"harbor.reward.{key}", float(value))


def tracer_provider(
    identity: TrialIdentity, exporter: SpanExporter | None = None, processor: SpanProcessor | None = None
) -> TracerProvider:
    """A provider whose resource carries the trial's identity. Pass an exporter (each span is
    exported as it ends) or your own processor (e.g. a BatchSpanProcessor)."""
    provider = TracerProvider(resource=Resource.create(identity.resource_attributes()))
    if processor is None and exporter is not None:
        processor = SimpleSpanProcessor(exporter)
    if processor is not None:
        provider.add_span_processor(processor)
    return provider


@contextmanager
def trial_spans(
    identity: TrialIdentity, provider: TracerProvider, start_time: int | None = None, end_time: int | None = None
) -> Iterator[TrialSpans]:
    """The `harbor.trial` root, ended (the trial complete) when the block exits."""
    tracer = provider.get_tracer(SCOPE)
    root = tracer.start_span(
        "harbor.trial",
        start_time=start_time,
        attributes={"harbor.trial.name": identity.trial, "harbor.job.name": identity.job},
    )
    try:
        with trace.use_span(root, end_on_exit=False, record_exception=True, set_status_on_exception=True):
            yield TrialSpans(tracer, root)
    finally:
        root.end(end_time=end_time)
        provider.force_flush()
