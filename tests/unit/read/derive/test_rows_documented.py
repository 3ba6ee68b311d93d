"""docs/field-guide.md documents every key of the API's trial, job and behaviour rows."""

import dataclasses

from harborlight.read.derive.behavior import derive_behavior
from harborlight.read.derive.provenance import derived, unavailable
from harborlight.read.derive.records import AgentCall, LoadedTrial, ToolCategory
from harborlight.read.derive.rows_json import behavior_row, job_row, trial_row
from harborlight.read.derive.trajectory_steps import StepDuration
from tests.unit.read.derive.builders import trial
from tests.unit.read.derive.test_field_guide import documented


def test_trial_job_and_behavior_row_keys_are_documented():
    loaded = LoadedTrial(trial("t1", reward=1.0), first_seen=1.0, last_seen=2.0, n_events=3)
    call = AgentCall(index=0, name="Read", category=ToolCategory.READ)
    calls = [
        {
            "index": 0,
            "name": "Read",
            "category": "read",
            "targets": [],
            "failed": None,
            "failure": unavailable("no observation recorded").to_json(),
            "timestamp": None,
            "step": None,
            "tool_call_id": None,
        }
    ]
    keys = set(trial_row(loaded)) | set(job_row("job-a", [loaded.facts]))
    keys |= set(
        behavior_row(
            "job-a",
            "t1",
            derive_behavior((call,)),
            n_calls=1,
            n_model_calls=0,
            truncated=False,
            calls=calls,
            last_agent_message=unavailable("no trajectory recorded"),
            steps=derived((StepDuration(1, "user", "2026-05-01T12:00:00Z", unavailable("last")),)),
        )
    )
    keys |= set(calls[0]) | {f.name for f in dataclasses.fields(StepDuration)}
    missing = sorted(keys - documented())
    assert not missing, f"API row keys not in docs/field-guide.md: {missing}"


def test_a_trial_row_says_missing_is_null_never_zero():
    row = trial_row(LoadedTrial(trial("t1"), first_seen=None, last_seen=None, n_events=0))
    assert row["n_input_tokens"] == {"value": None, "provenance": "unavailable", "note": "no input tokens recorded"}
    assert row["cost_usd"]["value"] is None and row["n_tool_calls"]["value"] is None
    assert row["outcome"]["value"] == "unknown" and row["outcome"]["note"] == "no verdict recorded"
