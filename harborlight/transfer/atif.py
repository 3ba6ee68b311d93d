"""ATIF trajectories (`agent/trajectory.json`) as typed records: read leniently, written exclude-none.

Field names and rules follow ATIF v1.6-v1.8 (../shared/reference/harbor-job-format.md, section 7):
agent-only fields stay off user and system steps, `source_call_id` names a tool call of the same
step, and steps are numbered 1, 2, 3, ... in order.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

Content = str | list[dict[str, Any]]  # text, or v1.6 content parts (text / image / audio)


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ToolCall(_Record):
    tool_call_id: str
    function_name: str
    arguments: dict[str, Any]
    extra: dict[str, Any] | None = None


class SubagentRef(_Record):
    trajectory_id: str | None = None
    trajectory_path: str | None = None
    session_id: str | None = None
    extra: dict[str, Any] | None = None


class ObservationResult(_Record):
    source_call_id: str | None = None
    content: Content | None = None
    subagent_trajectory_ref: list[SubagentRef] | None = None
    extra: dict[str, Any] | None = None


class Observation(_Record):
    results: list[ObservationResult]


class Metrics(_Record):
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None
    cost_usd: float | None = None
    prompt_token_ids: list[int] | None = None
    completion_token_ids: list[int] | None = None
    logprobs: list[float] | None = None
    extra: dict[str, Any] | None = None


class Step(_Record):
    step_id: int
    timestamp: str | None = None
    source: Literal["system", "user", "agent"]
    message: Content
    model_name: str | None = None
    reasoning_effort: str | float | None = None
    reasoning_content: str | None = None
    tool_calls: list[ToolCall] | None = None
    metrics: Metrics | None = None
    observation: Observation | None = None
    llm_call_count: int | None = None
    is_copied_context: bool | None = None
    extra: dict[str, Any] | None = None


class Agent(_Record):
    name: str
    version: str
    model_name: str | None = None
    tool_definitions: list[dict[str, Any]] | None = None
    extra: dict[str, Any] | None = None


class FinalMetrics(_Record):
    total_prompt_tokens: int | None = None
    total_completion_tokens: int | None = None
    total_cached_tokens: int | None = None
    total_cost_usd: float | None = None
    total_steps: int | None = None
    extra: dict[str, Any] | None = None


class Trajectory(_Record):
    schema_version: str = "ATIF-v1.6"
    session_id: str | None = None
    trajectory_id: str | None = None
    agent: Agent
    steps: list[Step]
    notes: str | None = None
    final_metrics: FinalMetrics | None = None
    continued_trajectory_ref: str | None = None
    extra: dict[str, Any] | None = None
    subagent_trajectories: list[Trajectory] | None = None


def to_json(trajectory: Trajectory) -> str:
    """The file's text: exclude-none, two-space indent, as Harbor's built-in agents write it (pydantic's
    own serializer: the standard library's pure-Python indenting encoder took most of an export's time)."""
    return trajectory.model_dump_json(exclude_none=True, indent=2) + "\n"
