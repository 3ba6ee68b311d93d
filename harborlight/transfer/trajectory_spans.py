"""An ATIF trajectory as the spans an OpenTelemetry-instrumented agent sends: an `invoke_agent` span
whose children are one `user_prompt` span per user or system step, one `chat` span per agent step
(model, tokens, cost, output messages with reasoning, text and tool calls), and one `execute_tool`
span per tool call (call id, arguments, observation). Embedded sub-agent trajectories become
`invoke_agent` spans under the tool call that spawned them.

Step times come from the step timestamps; a step without one follows its predecessor by 1 ms. Every
span starts strictly after the previous one, so reading them back in time order keeps step order.
"""

import json
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Span

from harborlight.read.derive.timestamps import stamp_ns
from harborlight.transfer import atif_attributes as A
from harborlight.transfer.atif import Step, Trajectory

MS = 1_000_000
US = 1_000


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _text(message: str | list) -> str:
    if isinstance(message, str):
        return message
    return "".join(p.get("text", "") for p in message if isinstance(p, dict) and p.get("type") == "text")


class _Clock:
    """Strictly increasing span start times, anchored on the steps' own timestamps."""

    def __init__(self, start_ns: int) -> None:
        self.now = start_ns

    def at(self, wanted: int | None, gap: int) -> int:
        self.now = max(wanted or 0, self.now + gap)
        return self.now


def emit_trajectory(
    tracer: trace.Tracer, parent: Span, trajectory: Trajectory, start_ns: int, end_ns: int | None = None
) -> int:
    """Emits the trajectory under `parent`; returns the time its last span ends."""
    clock = _Clock(start_ns - US)
    wanted = [stamp_ns(s.timestamp).value for s in trajectory.steps]
    first = clock.at(wanted[0] if wanted else None, US)
    clock.now -= US
    attributes = {
        A.OPERATION: "invoke_agent",
        A.AGENT_NAME: trajectory.agent.name,
        A.AGENT_VERSION: trajectory.agent.version,
        A.AGENT_ID: trajectory.trajectory_id,
        A.CONVERSATION_ID: trajectory.session_id,
        A.REQUEST_MODEL: trajectory.agent.model_name,
        A.SCHEMA_VERSION: trajectory.schema_version,
        A.AGENT_EXTRA: _json(trajectory.agent.extra) if trajectory.agent.extra is not None else None,
        A.TOOL_DEFINITIONS: (
            _json(trajectory.agent.tool_definitions) if trajectory.agent.tool_definitions is not None else None
        ),
        A.NOTES: trajectory.notes,
        A.FINAL_METRICS: (
            _json(trajectory.final_metrics.model_dump(mode="json", exclude_none=True))
            if trajectory.final_metrics is not None
            else None
        ),
        A.TRAJECTORY_EXTRA: _json(trajectory.extra) if trajectory.extra is not None else None,
        A.CONTINUED_REF: trajectory.continued_trajectory_ref,
    }
    agent = tracer.start_span(
        f"invoke_agent {trajectory.agent.name}",
        context=trace.set_span_in_context(parent),
        start_time=first,
        attributes=_present(attributes),
    )
    subagents = {s.trajectory_id: s for s in trajectory.subagent_trajectories or [] if s.trajectory_id}
    last = first
    for index, step in enumerate(trajectory.steps):
        start = clock.at(wanted[index], MS if wanted[index] is None else US)
        following = wanted[index + 1] if index + 1 < len(wanted) else None
        end = max(start, following - US) if following else start
        last = max(last, _emit_step(tracer, agent, step, start, end, subagents, clock))
    agent.end(end_time=max(last, end_ns or 0))
    return max(last, end_ns or 0)


def _present(attributes: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in attributes.items() if v is not None}


def _step_attributes(step: Step) -> dict[str, Any]:
    return {
        A.STEP_ID: step.step_id,
        A.STEP_SOURCE: step.source,
        A.STEP_TIMESTAMP: step.timestamp,
        A.STEP_EXTRA: _json(step.extra) if step.extra is not None else None,
        A.STEP_MESSAGE: _json(step.message) if not isinstance(step.message, str) else None,
        A.COPIED_CONTEXT: step.is_copied_context,
        A.OTHER_RESULTS: _json(
            [r.model_dump(mode="json", exclude_none=True) for r in step.observation.results if r.source_call_id is None]
        )
        if step.observation
        else None,
    }


def _emit_step(
    tracer: trace.Tracer, agent: Span, step: Step, start: int, end: int, subagents: dict[str, Trajectory], clock: _Clock
) -> int:
    context = trace.set_span_in_context(agent)
    text = _text(step.message)
    if step.source != "agent":
        messages = [{"role": step.source, "parts": [{"type": "text", "content": text}]}]
        span = tracer.start_span(
            f"{step.source}_prompt",
            context=context,
            start_time=start,
            attributes=_present(
                {A.OPERATION: "user_prompt", A.INPUT_MESSAGES: _json(messages), **_step_attributes(step)}
            ),
        )
        span.end(end_time=end)
        return end
    parts: list[dict[str, Any]] = []
    if step.reasoning_content is not None:
        parts.append({"type": "reasoning", "content": step.reasoning_content})
    parts.append({"type": "text", "content": text})
    for call in step.tool_calls or []:
        parts.append(
            {"type": "tool_call", "id": call.tool_call_id, "name": call.function_name, "arguments": call.arguments}
        )
    metrics = step.metrics
    span = tracer.start_span(
        f"chat {step.model_name}" if step.model_name else "chat",
        context=context,
        start_time=start,
        attributes=_present(
            {
                A.OPERATION: "chat",
                A.REQUEST_MODEL: step.model_name,
                A.OUTPUT_MESSAGES: _json([{"role": "assistant", "parts": parts}]),
                A.INPUT_TOKENS: metrics.prompt_tokens if metrics else None,
                A.OUTPUT_TOKENS: metrics.completion_tokens if metrics else None,
                A.CACHED_TOKENS: metrics.cached_tokens if metrics else None,
                A.COST: metrics.cost_usd if metrics else None,
                A.METRICS: _json(metrics.model_dump(mode="json", exclude_none=True)) if metrics else None,
                A.REASONING_EFFORT: _json(step.reasoning_effort) if step.reasoning_effort is not None else None,
                A.LLM_CALL_COUNT: step.llm_call_count,
                **_step_attributes(step),
            }
        ),
    )
    span.end(end_time=end)
    results = {
        r.source_call_id: r
        for r in (step.observation.results if step.observation else [])
        if r.source_call_id is not None
    }
    last = end
    for call in step.tool_calls or []:
        tool_start = clock.at(None, US)
        result = results.get(call.tool_call_id)
        content = result.content if result else None
        tool = tracer.start_span(
            f"execute_tool {call.function_name}",
            context=context,
            start_time=tool_start,
            attributes=_present(
                {
                    A.OPERATION: "execute_tool",
                    A.TOOL_NAME: call.function_name,
                    A.TOOL_CALL_ID: call.tool_call_id,
                    A.TOOL_ARGUMENTS: _json(call.arguments),
                    A.TOOL_CALL_EXTRA: _json(call.extra) if call.extra is not None else None,
                    A.HAS_RESULT: True if result else None,
                    A.TOOL_RESULT: content if isinstance(content, str) else (_text(content) if content else None),
                    A.RESULT_PARTS: _json(content) if isinstance(content, list) else None,
                    A.RESULT_EXTRA: _json(result.extra) if result and result.extra is not None else None,
                    A.SUBAGENT_REFS: (
                        _json([r.model_dump(mode="json", exclude_none=True) for r in result.subagent_trajectory_ref])
                        if result and result.subagent_trajectory_ref is not None
                        else None
                    ),
                }
            ),
        )
        tool_end = tool_start
        for ref in (result.subagent_trajectory_ref or []) if result else []:
            if ref.trajectory_id in subagents:
                tool_end = max(
                    tool_end, emit_trajectory(tracer, tool, subagents.pop(ref.trajectory_id), clock.at(None, US))
                )
                clock.now = max(clock.now, tool_end)
        tool.end(end_time=tool_end)
        last = max(last, tool_end)
    return last
