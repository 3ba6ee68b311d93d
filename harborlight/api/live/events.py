"""What a person watching a run sees: agent_events rows turned into live events. Pure: rows in, events out.

Spans reach the store when they end, so each event is reported at its end: a phase event says a phase has
just finished (and the next begins), `trial_finished` comes with the root `harbor.trial` span. A trial's
first event of any kind is preceded by `trial_started`.
"""

from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

# The columns read, in the order `LiveRow` takes them.
COLUMNS = """
    EventId, Kind, Name, JobName, TrialName, TaskName, AgentName, Model,
    toUnixTimestamp64Nano(Timestamp) AS ts, toUnixTimestamp64Nano(coalesce(EndTimestamp, Timestamp)) AS end_ts,
    InputTokens, OutputTokens, CostUsd, HttpStatus, Success, ToolName, ToolCategory, Tenant, TwinId AS _twin_id"""

PHASES = {"harbor.environment_setup", "harbor.agent_setup", "harbor.agent_execution", "harbor.verifier"}
TRIAL_SPAN = "harbor.trial"


# Named tuples, not dataclasses: a history replays a row and an event per call of the job (500,000 on a
# 1,000-trial job), and a frozen dataclass costs ~4 µs per row to build, a named tuple ~1 µs.
class LiveRow(NamedTuple):
    event_id: str
    kind: str
    name: str
    job: str | None
    trial: str | None
    task: str | None
    agent: str | None
    model: str | None
    start_unix_nano: int
    end_unix_nano: int
    input_tokens: int | None
    output_tokens: int | None
    cost_usd: float | None
    http_status: int | None
    success: bool | None
    tool: str | None
    tool_category: str | None
    tenant: str
    twin_id: str  # the event id of the same call told by the other signal, '' when there is none


class LiveEvent(NamedTuple):
    type: str  # trial_started, phase, model_call, tool_call, trial_finished
    job: str | None
    trial: str | None
    at_unix_nano: int
    data: dict

    def as_json(self) -> dict:
        return self._asdict()


# (job, trial) -> the stored row's (outcome, reward), for the trials whose end is being shown.
Verdicts = Mapping[tuple[str | None, str | None], tuple[str | None, float | None]]
NO_VERDICTS: Verdicts = MappingProxyType({})  # read-only: a shared default no call can change


def to_events(row: LiveRow, started: set[str], verdicts: Verdicts = NO_VERDICTS) -> list[LiveEvent]:
    """The events one row means for a watcher who has seen `started` trials begin (updated in place);
    a trial's end tells its outcome and reward as its stored row does (`verdicts`; null when not derived)."""
    out: list[LiveEvent] = []
    if row.trial and row.trial not in started:
        started.add(row.trial)
        out.append(
            LiveEvent("trial_started", row.job, row.trial, row.start_unix_nano, {"task": row.task, "agent": row.agent})
        )
    if row.name == TRIAL_SPAN:
        outcome, reward = verdicts.get((row.job, row.trial), (None, None))
        out.append(
            LiveEvent(
                "trial_finished",
                row.job,
                row.trial,
                row.end_unix_nano,
                {
                    "success": row.success,
                    "duration_ns": row.end_unix_nano - row.start_unix_nano,
                    "outcome": outcome,
                    "reward": reward,
                },
            )
        )
    elif row.name in PHASES:
        out.append(
            LiveEvent(
                "phase",
                row.job,
                row.trial,
                row.end_unix_nano,
                {
                    "phase": row.name.removeprefix("harbor."),
                    "state": "finished",
                    "success": row.success,
                    "duration_ns": row.end_unix_nano - row.start_unix_nano,
                },
            )
        )
    elif row.kind == "llm_request":
        out.append(
            LiveEvent(
                "model_call",
                row.job,
                row.trial,
                row.end_unix_nano,
                {
                    "model": row.model,
                    "input_tokens": row.input_tokens,
                    "output_tokens": row.output_tokens,
                    "cost_usd": row.cost_usd,
                    "http_status": row.http_status,
                    "success": row.success,
                },
            )
        )
    elif row.kind == "tool":
        out.append(
            LiveEvent(
                "tool_call",
                row.job,
                row.trial,
                row.end_unix_nano,
                {"tool": row.tool, "category": row.tool_category, "success": row.success},
            )
        )
    return out
