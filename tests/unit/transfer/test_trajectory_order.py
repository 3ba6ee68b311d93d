"""A model's answer goes to the step of the call that produced it, whatever the clocks say: a log event
logged inside a call's span (Qwen Code's api_response) often carries the call's start to the millisecond."""

import json

import pytest

from harborlight.transfer.telemetry import Event
from harborlight.transfer.trajectory_build import AgentDefaults, build_trajectory

MS = 1_000_000
DEFAULTS = AgentDefaults(name="qwen-coder", version="0.24.4", model="m", session_id="s")


def _call(span: str, start_ms: int, event_id: str) -> Event:
    return Event(
        event_id, "t", span, "root", "otel_traces", "llm_request", "", "chat", "svc", "", start_ms * MS,
        (start_ms + 30) * MS, "measured", "trial", model="m", input_tokens=10, output_tokens=5,
    )  # fmt: skip


def _answer(span: str, start_ms: int, text: str, event_id: str) -> Event:
    parts = [{"role": "assistant", "parts": [{"type": "text", "content": text}]}]
    return Event(
        event_id, "t", span, "", "otel_logs", "output", "", "api_response", "svc", "", start_ms * MS,
        (start_ms + 30) * MS, "inferred", "trial", attributes={"gen_ai.output.messages": json.dumps(parts)},
    )  # fmt: skip


@pytest.mark.parametrize("answer_id", ["0-sorts-first", "z-sorts-last"])
@pytest.mark.parametrize("offset_ms", [0, -1])
def test_an_answer_logged_in_its_calls_span_is_that_calls_message(answer_id, offset_ms):
    """Its time the same as its call's start, or a rounded millisecond before it: the text is still the
    second call's, not the first's."""
    events = [
        _call("a", 100, "call-1"),
        _answer("a", 100, "first", "answer-1"),
        _call("b", 200, "call-2"),
        _answer("b", 200 + offset_ms, "second", answer_id),
    ]
    trajectory = build_trajectory(events, DEFAULTS)
    assert [s.message for s in trajectory.steps] == ["first", "second"]
