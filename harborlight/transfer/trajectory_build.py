"""A trial's agent events as an ATIF trajectory (pure).

Events are taken in time order: a user message starts a user (or system) step; a model call starts
an agent step (model, tokens, cost; message, reasoning and tool calls from its output), after a user step
of its own when its input messages end with the user's new turn (latest GenAI conventions); output and
reasoning events fill the agent step of their call (the call whose span logged them, or whose request id
they name, else the current one), and so do the tool calls a model's output choice logged (GenAI 1.30
gen_ai.choice); a user message logged inside a model call's span (GenAI 1.30: its input) comes before that
call's step; a tool call joins the current agent step with its observation. Failed model calls (a 429
and such) made no step; they are in gateway.log. A side call (a session title, a summary:
Event.side_call, or a call that offers the model no tools where the agent's other calls of its operation do,
rules.OFFERED_TOOLS) is no step either; its tokens and cost are in the totals. A user step is what the agent was
given where the model's user message wraps an agent span's input in the framework's template. Events
under a tool call (a sub-agent's model calls and tools) form an embedded sub-agent trajectory,
referenced from that tool call's observation. Attributes written by the Harbor importer
(harborlight/transfer/atif_attributes.py) restore what only a trajectory has, so a round trip is exact.
"""

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from harborlight.agent.rules import SERVICE_AGENTS
from harborlight.transfer import atif_attributes as A
from harborlight.transfer.atif import (
    Agent,
    FinalMetrics,
    Metrics,
    Observation,
    ObservationResult,
    Step,
    SubagentRef,
    ToolCall,
    Trajectory,
)
from harborlight.transfer.event_content import (
    agent_inputs,
    as_the_agent_was_asked,
    load_json,
    model_output,
    new_user_turn,
    offers_tools,
    tool_arguments,
    tool_result,
    user_message,
)
from harborlight.transfer.telemetry import Event

STEP_KINDS = ("user_message", "llm_request", "output", "reasoning", "tool", "group")


@dataclass(frozen=True)
class AgentDefaults:
    """Who ran, when no invoke_agent span says it."""

    name: str
    version: str
    model: str | None
    session_id: str


def iso(ns: int) -> str:
    moment = datetime.fromtimestamp(ns // 1_000_000_000, UTC).replace(microsecond=(ns % 1_000_000_000) // 1000)
    return moment.isoformat().replace("+00:00", "Z")


def build_trajectory(events: list[Event], defaults: AgentDefaults) -> Trajectory | None:
    agent_events = [e for e in events if not e.is_lifecycle]
    owners = _owners(agent_events)
    groups: dict[str | None, list[Event]] = {}
    for event in agent_events:
        groups.setdefault(owners.get(event.event_id), []).append(event)
    return _trajectory(None, groups, defaults)


def _owners(events: list[Event]) -> dict[str, str | None]:
    """Each event's nearest tool-call ancestor (the sub-agent it belongs to), None for the main agent. Each
    span's nearest tool at or above it is found once, so a chain of any depth is read in linear time."""
    by_span = {e.span_id: e for e in events if e.source == "otel_traces" and e.span_id}
    nearest: dict[str, Event | None] = {}

    def tool_at_or_above(span_id: str | None) -> Event | None:
        path: dict[str, None] = {}  # the spans walked, in order (a cycle stops the walk)
        found = None
        while span_id and span_id in by_span and span_id not in path:
            if span_id in nearest:
                found = nearest[span_id]
                break
            span = by_span[span_id]
            if span.kind == "tool":
                found = span
                break
            path[span_id] = None
            span_id = span.parent_span_id
        nearest.update(dict.fromkeys(path, found))
        return found

    owners: dict[str, str | None] = {}
    for event in events:
        owner = tool_at_or_above(event.parent_span_id if event.source == "otel_traces" else event.span_id)
        passed: set[str] = set()
        # not itself, nor the same call told twice (a tool span over the call's own record): the next one up
        while (
            owner is not None
            and owner.event_id not in passed
            and (owner is event or (event.kind == "tool" and owner.tool_call_id == event.tool_call_id))
        ):
            passed.add(owner.event_id)
            owner = tool_at_or_above(owner.parent_span_id)
        owners[event.event_id] = None if owner is None or owner.event_id in passed else owner.event_id
    return owners


def _in_order(events: list[Event]) -> list[Event]:
    """Time order, except that a user message logged inside a model call's span (that call's input) comes just
    before the call, and the output, reasoning or choice a call logged (in its span, or naming its request id)
    never before the call: a log event's time is often its call's start to the millisecond, or inferred from a
    rounded duration, and a tie must not give its text to the call before."""
    calls = [e for e in events if e.kind == "llm_request"]
    by_span = {e.span_id: e.start_ns for e in calls if e.source == "otel_traces"}
    by_request = {e.request_id: e.start_ns for e in calls if e.request_id}

    def call_start(e: Event) -> int | None:
        if e.request_id in by_request:
            return by_request[e.request_id]
        return by_span.get(e.span_id) if e.source == "otel_logs" else None

    def key(e: Event) -> tuple[int, int, int, str]:
        if e.kind == "user_message" and e.source == "otel_logs" and e.span_id in by_span:
            return by_span[e.span_id], 0, e.start_ns, e.event_id
        if e.kind in ("output", "reasoning", "group") and (start := call_start(e)) is not None:
            return max(e.start_ns, start), 2, e.start_ns, e.event_id
        return e.start_ns, 1, 0, e.event_id

    return sorted(events, key=key)


def _harbor_name(name: str | None) -> str | None:
    """An agent's name as Harbor names it, as the agent views read it (rules.SERVICE_AGENTS: qwen-code is
    qwen-coder)."""
    return next((agent for prefix, agent in SERVICE_AGENTS if name and name.startswith(prefix)), name)


def _trajectory(key: str | None, groups: dict[str | None, list[Event]], defaults: AgentDefaults) -> Trajectory | None:
    events = _in_order(groups.get(key, []))
    head = next((e for e in events if e.resolve == "agent" or e.attributes.get(A.OPERATION) == "invoke_agent"), None)
    steps, subagents, side_calls = _steps(events, groups, defaults)
    if not steps:
        return None
    a = head.attributes if head else {}
    model = (
        a.get(A.REQUEST_MODEL)
        or (defaults.model if key is None else None)
        or next((s.model_name for s in steps if s.model_name), None)
    )
    agent = Agent(
        name=_harbor_name(a.get(A.AGENT_NAME)) or defaults.name,
        version=a.get(A.AGENT_VERSION) or defaults.version,
        model_name=model,
        tool_definitions=load_json(a.get(A.TOOL_DEFINITIONS)),
        extra=load_json(a.get(A.AGENT_EXTRA)),
    )
    final = load_json(a.get(A.FINAL_METRICS))
    trajectory = Trajectory(
        schema_version=a.get(A.SCHEMA_VERSION) or ("ATIF-v1.7" if subagents or key is not None else "ATIF-v1.6"),
        session_id=a.get(A.CONVERSATION_ID)
        or next((e.attributes["session.id"] for e in events if e.attributes.get("session.id")), None)
        or defaults.session_id,
        trajectory_id=a.get(A.AGENT_ID) or (key if key is not None else None),
        agent=agent,
        steps=steps,
        notes=a.get(A.NOTES),
        final_metrics=(
            FinalMetrics.model_validate(final) if isinstance(final, dict) else _totals(steps, subagents, side_calls)
        ),
        continued_trajectory_ref=a.get(A.CONTINUED_REF),
        extra=load_json(a.get(A.TRAJECTORY_EXTRA)),
        subagent_trajectories=subagents or None,
    )
    return trajectory


def _totals(steps: list[Step], subagents: list[Trajectory], side_calls: list[Metrics]) -> FinalMetrics:
    """The trajectory's totals: its steps' and its side calls' (a side call is no step, but its tokens and
    cost were spent for the trajectory), and its sub-agents' cost."""
    measured = [s.metrics for s in steps if s.metrics] + side_calls

    def total(field: str) -> int | float | None:
        values = [getattr(m, field) for m in measured if getattr(m, field) is not None]
        return sum(values) if values else None

    cost = total("cost_usd")
    sub_costs = [
        t.final_metrics.total_cost_usd
        for t in subagents
        if t.final_metrics and t.final_metrics.total_cost_usd is not None
    ]
    if sub_costs:
        cost = (cost or 0.0) + sum(sub_costs)
    return FinalMetrics(
        total_prompt_tokens=total("prompt_tokens"),
        total_completion_tokens=total("completion_tokens"),
        total_cached_tokens=total("cached_tokens"),
        total_cost_usd=cost,
        total_steps=len(steps),
    )


def _metrics(event: Event) -> Metrics | None:
    carried = load_json(event.attributes.get(A.METRICS))
    if isinstance(carried, dict):
        return Metrics.model_validate(carried)
    extra = {
        k: v
        for k, v in (
            ("reasoning_output_tokens", event.reasoning_tokens),
            ("cache_creation_input_tokens", event.cache_write_tokens),
        )
        if v is not None
    }
    metrics = Metrics(
        prompt_tokens=event.input_tokens,
        completion_tokens=event.output_tokens,
        cached_tokens=event.cached_tokens,
        cost_usd=event.cost_usd,
        extra=extra or None,
    )
    return None if metrics == Metrics() else metrics


def _common(event: Event) -> dict:
    a = event.attributes
    imported = event.scope == A.SCOPE
    return {
        "timestamp": a.get(A.STEP_TIMESTAMP) if imported else iso(event.start_ns),
        "extra": load_json(a.get(A.STEP_EXTRA)),
        "is_copied_context": {"true": True, "false": False}.get(a.get(A.COPIED_CONTEXT, "")),
    }


def _steps(
    events: list[Event], groups: dict, defaults: AgentDefaults
) -> tuple[list[Step], list[Trajectory], list[Metrics]]:
    """(the steps, the sub-agents' trajectories, the metrics of the side calls)."""
    steps: list[Step] = []
    subagents: list[Trajectory] = []
    side_calls: list[Metrics] = []
    current: Step | None = None
    by_request: dict[str, Step] = {}  # a model call's step by its request id: its text goes there
    by_span: dict[str, Step] = {}  # a model call's step by its span: what it logged goes there
    asked = agent_inputs(events)
    serving = _serving_calls(events)
    for event in events:
        if event.side_call or event.event_id in serving:  # a side call (and its text) is no step: in the totals only
            if event.kind == "llm_request" and (metrics := _metrics(event)) is not None:
                side_calls.append(metrics)
            continue
        if event.kind not in STEP_KINDS:
            continue
        if event.kind == "user_message":
            role, text = user_message(event)
            text = as_the_agent_was_asked(text, asked)
            parts = load_json(event.attributes.get(A.STEP_MESSAGE))
            role = event.attributes.get(A.STEP_SOURCE, role)
            steps.append(
                Step(
                    step_id=len(steps) + 1,
                    source=role if role in ("user", "system") else "user",
                    message=parts if isinstance(parts, list) else text,
                    **_common(event),
                )
            )
            current = None
        elif event.kind == "llm_request":
            if (event.http_status or 0) >= 400 or (event.success is False and event.output_tokens is None):
                continue  # a refused call: no step, counted in gateway.log
            if (turn := new_user_turn(event)) is not None:
                turn = as_the_agent_was_asked(turn, asked)
                steps.append(Step(step_id=len(steps) + 1, source="user", message=turn, **_common(event)))
            current = _agent_step(event, len(steps) + 1)
            steps.append(current)
            if event.request_id:
                by_request[event.request_id] = current
            if event.source == "otel_traces" and event.span_id:
                by_span[event.span_id] = current
        elif event.kind in ("output", "reasoning"):
            out = model_output(event)
            step = (
                by_request.get(event.request_id or "")
                or (by_span.get(event.span_id) if event.source == "otel_logs" else None)
                or current
            )
            if step is None or (event.kind == "output" and step.message and out.text):
                step = current = Step(
                    step_id=len(steps) + 1, source="agent", message="", model_name=event.model, **_common(event)
                )
                steps.append(current)
            if event.kind == "output" and out.text:
                step.message = out.text
            if out.reasoning or event.kind == "reasoning":
                step.reasoning_content = out.reasoning or tool_result(event) or step.reasoning_content
            _add_requested_calls(step, out)
        elif event.kind == "group":
            # a model's output that requested tools only (GenAI 1.30 gen_ai.choice): its call's tool calls
            out = model_output(event) if event.source == "otel_logs" else None
            step = by_span.get(event.span_id) or current
            if out is not None and out.tool_calls and step is not None:
                _add_requested_calls(step, out)
        else:
            if current is None:
                current = Step(step_id=len(steps) + 1, source="agent", message="", **_common(event))
                steps.append(current)
            sub = _trajectory(event.event_id, groups, defaults) if event.event_id in groups else None
            if sub is not None:
                subagents.append(sub)
            _add_tool_call(current, event, sub, len(steps))
    return steps, subagents, side_calls


def _serving_calls(events: list[Event]) -> set[str]:
    """The model calls that offer the model no tools where the agent's other calls of the same operation (source,
    scope and name) do (rules.OFFERED_TOOLS): calls that serve the session, as a session title does."""
    calls = [e for e in events if e.kind == "llm_request"]
    offering = {(e.source, e.scope, e.name) for e in calls if offers_tools(e)}
    return {e.event_id for e in calls if (e.source, e.scope, e.name) in offering and not offers_tools(e)}


def _agent_step(event: Event, step_id: int) -> Step:
    a = event.attributes
    out = model_output(event)
    parts = load_json(a.get(A.STEP_MESSAGE))
    calls = [ToolCall(tool_call_id=i, function_name=n, arguments=args) for i, n, args in out.tool_calls]
    effort = load_json(a.get(A.REASONING_EFFORT))
    count = a.get(A.LLM_CALL_COUNT)
    metrics = _metrics(event)
    return Step(
        step_id=step_id,
        source="agent",
        message=parts if isinstance(parts, list) else (out.text or ""),
        model_name=a.get(A.REQUEST_MODEL) if event.scope == A.SCOPE else event.model,
        reasoning_content=out.reasoning,
        tool_calls=calls or None,
        metrics=None if count == "0" else metrics,
        reasoning_effort=effort,
        llm_call_count=int(count) if count not in (None, "") else None,
        observation=_other_results(a),
        **_common(event),
    )


def _add_requested_calls(step: Step, out) -> None:
    """The tool calls a model's output requested, on its step (each call id once)."""
    calls = step.tool_calls or []
    known = {c.tool_call_id for c in calls}
    for call_id, name, arguments in out.tool_calls:
        if call_id not in known:
            calls.append(ToolCall(tool_call_id=call_id, function_name=name, arguments=arguments))
            known.add(call_id)
    step.tool_calls = calls or None


def _other_results(attributes: dict[str, str]) -> Observation | None:
    results = load_json(attributes.get(A.OTHER_RESULTS))
    if not results:
        return None
    return Observation(results=[ObservationResult.model_validate(r) for r in results])


def _requested_call_id(step: Step, event: Event) -> str | None:
    """A tool span that names no call id (OpenInference's TOOL spans) answers the step's first requested call
    of its tool, with its arguments (or a bare value, as_arguments' {"input": value}, that is the call's one
    argument), that no result answered yet."""
    answered = {r.source_call_id for r in (step.observation.results if step.observation else [])}
    name, arguments = event.tool_name or event.name, tool_arguments(event)

    def same(requested: dict[str, Any]) -> bool:
        return (
            not arguments
            or requested == arguments
            or (list(arguments) == ["input"] and list(requested.values()) == [arguments["input"]])
        )

    return next(
        (
            c.tool_call_id
            for c in step.tool_calls or []
            if c.function_name == name and c.tool_call_id not in answered and same(c.arguments or {})
        ),
        None,
    )


def _add_tool_call(step: Step, event: Event, sub: Trajectory | None, n_steps: int) -> None:
    a = event.attributes
    call_id = (
        event.tool_call_id
        or a.get(A.TOOL_CALL_ID)
        or _requested_call_id(step, event)
        or f"call_{n_steps}_{len(step.tool_calls or []) + 1}"
    )
    calls = step.tool_calls or []
    call = next((c for c in calls if c.tool_call_id == call_id), None)
    if call is None:
        call = ToolCall(
            tool_call_id=call_id, function_name=event.tool_name or event.name, arguments=tool_arguments(event)
        )
        calls.append(call)
        step.tool_calls = calls
    if a.get(A.TOOL_CALL_EXTRA):
        call.extra = load_json(a[A.TOOL_CALL_EXTRA])
    if event.scope == A.SCOPE and A.HAS_RESULT not in a:
        return  # an imported trajectory that recorded no observation for this call
    parts = load_json(a.get(A.RESULT_PARTS))
    refs = load_json(a.get(A.SUBAGENT_REFS))
    if refs is None and sub is not None:
        refs = [{"trajectory_id": sub.trajectory_id}]
    result = ObservationResult(
        source_call_id=call_id,
        content=parts if isinstance(parts, list) else tool_result(event),
        subagent_trajectory_ref=[SubagentRef.model_validate(r) for r in refs] if refs else None,
        extra=load_json(a.get(A.RESULT_EXTRA)),
    )
    if step.observation is None:
        step.observation = Observation(results=[])
    twin = next((r for r in step.observation.results if r.source_call_id == call_id), None)
    if twin is None:
        step.observation.results.append(result)
    elif twin.content is None:
        twin.content = result.content
