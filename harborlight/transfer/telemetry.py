"""A job's stored telemetry as typed records: one Event per agent event (span or log event), with
the facts the agent layer derived and the raw attributes the trajectory's content comes from."""

from dataclasses import dataclass, field

from harborlight.agent.identity import LIFECYCLE_SPANS


@dataclass(frozen=True, slots=True)
class SpanEvent:
    """An event recorded on a span (an `exception`, a `tool.output`, ...)."""

    name: str
    time_ns: int
    attributes: dict[str, str]


@dataclass(frozen=True, slots=True)
class Event:
    event_id: str
    trace_id: str
    span_id: str
    parent_span_id: str
    source: str  # otel_traces or otel_logs
    kind: str
    resolve: str
    name: str
    service: str
    scope: str
    start_ns: int
    end_ns: int | None
    timing: str
    trial: str
    attempt: int | None = None
    task: str | None = None
    agent: str | None = None
    model: str | None = None
    input_tokens: int | None = None
    cached_tokens: int | None = None
    cache_write_tokens: int | None = None
    output_tokens: int | None = None
    reasoning_tokens: int | None = None
    cost_usd: float | None = None
    http_status: int | None = None
    error_type: str | None = None
    success: bool | None = None
    tool_name: str | None = None
    tool_category: str | None = None
    tool_call_id: str | None = None
    agent_version: str | None = None
    request_id: str | None = None  # the provider's id of a model call, also on its text (Claude Code)
    side_call: str | None = None  # the purpose of a model call that serves the session, not its turns
    attributes: dict[str, str] = field(default_factory=dict)  # span or log attributes (+ "body" for logs)
    resource: dict[str, str] = field(default_factory=dict)  # read for lifecycle spans only
    span_events: tuple[SpanEvent, ...] = ()
    status_message: str = ""

    @property
    def is_lifecycle(self) -> bool:
        return self.source == "otel_traces" and self.name in LIFECYCLE_SPANS


@dataclass
class TrialTelemetry:
    name: str
    events: list[Event] = field(default_factory=list)  # time order

    def lifecycle(self, name: str) -> Event | None:
        """The latest span of that lifecycle name (a re-sent trial replaces the earlier one)."""
        found = [e for e in self.events if e.is_lifecycle and e.name == name]
        return found[-1] if found else None

    @property
    def root(self) -> Event | None:
        return self.lifecycle("harbor.trial")

    @property
    def is_running(self) -> bool:
        """The root span is written when it ends: until then a trial its harness reports is running. An
        agent that streamed without a harness (no lifecycle span at all) is not running: it simply has no
        verdict (as the trial rows say, harborlight/read/statements/load_trials.py)."""
        return self.root is None and any(e.is_lifecycle for e in self.events)
