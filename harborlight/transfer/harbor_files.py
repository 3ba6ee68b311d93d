"""Harbor's job and trial files as typed records (../shared/reference/harbor-job-format.md, sections 2-5).

The subset of Harbor's models that harborlight reads and writes, with the same field names, so files
written from these load with Harbor's own models. Unknown keys are ignored on read, as Harbor does;
configs (JobConfig, TrialConfig) are carried as JSON objects, verbatim.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore")


class TimingInfo(_Record):
    started_at: datetime | None = None
    finished_at: datetime | None = None


class ExceptionInfo(_Record):
    exception_type: str
    exception_message: str
    exception_traceback: str
    occurred_at: datetime


class ModelInfo(_Record):
    name: str
    provider: str | None = None


class AgentInfo(_Record):
    name: str
    version: str
    model_info: ModelInfo | None = None


class AgentContext(_Record):
    n_input_tokens: int | None = None
    n_cache_tokens: int | None = None
    n_output_tokens: int | None = None
    cost_usd: float | None = None
    model_usage: dict[str, Any] | None = None
    rollout_details: list[dict[str, Any]] | None = None
    metadata: dict[str, Any] | None = None


class VerifierResult(_Record):
    rewards: dict[str, float | int] | None = None


class TrialResult(_Record):
    id: UUID
    task_name: str
    trial_name: str
    trial_uri: str
    task_id: dict[str, Any]
    source: str | None = None
    task_checksum: str
    config: dict[str, Any]
    agent_info: AgentInfo
    agent_result: AgentContext | None = None
    verifier_result: VerifierResult | None = None
    verifier_environment_mode: str | None = None
    exception_info: ExceptionInfo | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    environment_setup: TimingInfo | None = None
    agent_setup: TimingInfo | None = None
    agent_execution: TimingInfo | None = None
    verifier: TimingInfo | None = None
    step_results: list[dict[str, Any]] | None = None


class AgentDatasetStats(_Record):
    n_trials: int = 0
    n_errors: int = 0
    metrics: list[dict[str, Any]] = Field(default_factory=list)
    pass_at_k: dict[int, float] = Field(default_factory=dict)
    reward_stats: dict[str, dict[str, list[str]]] = Field(default_factory=dict)
    exception_stats: dict[str, list[str]] = Field(default_factory=dict)


class JobStats(_Record):
    n_completed_trials: int = 0
    n_errored_trials: int = 0
    n_running_trials: int = 0
    n_pending_trials: int = 0
    n_cancelled_trials: int = 0
    n_retries: int = 0
    evals: dict[str, AgentDatasetStats] = Field(default_factory=dict)
    n_input_tokens: int | None = None
    n_cache_tokens: int | None = None
    n_output_tokens: int | None = None
    cost_usd: float | None = None


class JobResult(_Record):
    id: UUID
    started_at: datetime
    updated_at: datetime | None = None
    finished_at: datetime | None = None
    n_total_trials: int
    stats: JobStats


def dump(record: BaseModel) -> str:
    """Harbor's `model_dump_json(indent=4)`: every field, nulls included."""
    return record.model_dump_json(indent=4)


def dump_object(value: dict[str, Any]) -> str:
    """A config object, indented as Harbor writes it."""
    return json.dumps(value, indent=4, ensure_ascii=False)
