"""`steps[].dur` and `calls[].failure` on GET /api/trials/{trial}/behavior and in `harborlight trial`, from
real telemetry: Claude Code and Codex's own recordings (tests/real_agents/fixtures, replayed with
`harborlight import otlp`) and a Harbor job directory written with Harbor's own models
(tests/importers/harbor_job.py), imported with `harborlight import harbor`. Expected values come from what
the agents recorded (the command `cat missing.txt` really ran: coreutils' message) and from the Harbor
trajectory file itself, never from harborlight's answers."""

import json
from datetime import datetime

import httpx

from tests.importers.cli import run
from tests.importers.harbor_job import import_job
from tests.real_agents.cases import replayed


def _behavior(server, trial: str, job: str) -> dict:
    return httpx.get(f"{server.http_url}/api/trials/{trial}/behavior", params={"job": job}, timeout=120).json()


def test_codex_failed_command_shows_what_the_command_printed(server, tmp_path):
    case = replayed("codex-0.171.0-failing-command-grpc", server, tmp_path)
    row = _behavior(server, case.recording.trial, case.recording.job)
    [call] = [c for c in row["calls"] if c["failed"]]
    assert call["failure"]["provenance"] == "inferred"
    assert "cat: missing.txt: No such file or directory" in call["failure"]["value"].splitlines()


def test_claude_code_logs_no_tool_output_so_a_failure_has_no_text(server, tmp_path):
    case = replayed("claude-code-2.1.197-failing-command-grpc", server, tmp_path)
    row = _behavior(server, case.recording.trial, case.recording.job)
    [call] = [c for c in row["calls"] if c["failed"]]
    assert call["failure"] == {"value": None, "provenance": "unavailable", "note": "no observation recorded"}


def test_a_call_that_did_not_fail_has_no_failure(server, tmp_path):
    case = replayed("codex-0.171.0-three-turn-grpc", server, tmp_path)
    row = _behavior(server, case.recording.trial, case.recording.job)
    assert row["calls"] and all(c["failed"] is False for c in row["calls"])
    assert {c["failure"]["note"] for c in row["calls"]} == {"the call did not fail"}


def test_steps_of_a_run_under_a_second_have_no_duration_not_zero(server, tmp_path):
    case = replayed("claude-code-2.1.197-failing-command-grpc", server, tmp_path)
    steps = _behavior(server, case.recording.trial, case.recording.job)["steps"]["value"]
    stamps = [datetime.fromisoformat(s["timestamp"].replace("Z", "+00:00")).timestamp() for s in steps]
    assert max(stamps) - min(stamps) < 1.0  # the fake provider answers at once: a flat step clock
    assert {s["dur"]["value"] for s in steps} == {None}
    assert {s["dur"]["note"] for s in steps} == {"flat step clock: the step timestamps span under 1 s"}


def test_harbor_trajectory_steps_last_until_the_next_step_opened(server, unique, tmp_path, capsys):
    job = f"steps-{unique}"
    trial_dir, harbor = import_job(capsys, server, tmp_path / "src", job, "hello-world__solved")
    opened = [datetime.fromisoformat(s.timestamp.replace("Z", "+00:00")).timestamp() for s in harbor.steps]

    row = _behavior(server, trial_dir.name, job)
    steps = row["steps"]["value"]
    assert [s["step_id"] for s in steps] == [s.step_id for s in harbor.steps]
    assert [s["dur"]["value"] for s in steps[:-1]] == [b - a for a, b in zip(opened, opened[1:], strict=False)]
    assert {s["dur"]["provenance"] for s in steps[:-1]} == {"derived"}
    assert steps[-1]["dur"] == {
        "value": None,
        "provenance": "unavailable",
        "note": "the last step: no next step opened",
    }

    code, out, err = run(capsys, "trial", trial_dir.name, "--job", job, "--server", server.http_url)
    assert code == 0, err
    assert "steps" in out
    code, out, _ = run(capsys, "trial", trial_dir.name, "--job", job, "--json", "--server", server.http_url)
    assert json.loads(out)["behavior"]["steps"] == row["steps"]


def test_a_call_whose_span_only_ended_is_not_read_as_one_that_did_not_fail(server, unique, tmp_path, capsys):
    # Harbor's trajectory has no status for a tool call: its observation is all there is. The pytest run
    # printed "1 failed"; the imported span merely ended, so its success is a guess, not a status.
    job = f"guessed-{unique}"
    trial_dir, harbor = import_job(capsys, server, tmp_path / "src", job, "hello-world__solved")
    said = {r.source_call_id: r.content for s in harbor.steps for r in (s.observation.results if s.observation else [])}

    calls = {c["tool_call_id"]: c for c in _behavior(server, trial_dir.name, job)["calls"]}
    assert calls["toolu_02"]["failure"] == {
        "value": said["toolu_02"],
        "provenance": "inferred",
        "note": "no success signal: the call's span only ended without an error status; "
        "these lines of its observation read as a failure",
    }
    assert calls["toolu_04"]["failure"] == {
        "value": None,
        "provenance": "unavailable",
        "note": "no success signal: the call's span only ended without an error status; "
        "no failure spotted in the observation",
    }
