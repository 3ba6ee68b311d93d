"""What harborlight answers about the real agents' recorded runs (tests/real_agents/fixtures: the raw OTLP
each pinned agent sent while it played a scripted episode against a fake provider, and what the fake
served). The expectations come from the episode's script and the agents' own records, never from our
writer; the telemetry is replayed as it was received (OTLP/JSON over HTTP)."""

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from harbor.models.trajectories import Trajectory

from tests.agent.otlp_build import post
from tests.real_agents.episodes import ANSWER
from tests.real_agents.providers.script import SIDE_TURN
from tests.real_agents.recordings import load

_PATHS = {"resourceSpans": "/v1/traces", "resourceLogs": "/v1/logs", "resourceMetrics": "/v1/metrics"}


def replay(server, stem: str):
    """Sends a recording's requests to the server as they were received; its Recording."""
    recording, path = load(stem)
    for line in path.read_text().splitlines():
        signal = next(key for key in _PATHS if key in json.loads(line))
        post(server, _PATHS[signal], line.encode(), content_type="application/json")
    return recording


def _get(server, path: str, **params):
    reply = httpx.get(f"{server.http_url}{path}", params=params, timeout=60)
    assert reply.status_code == 200, reply.text
    return reply.json()


def _trajectory(server, recording) -> Trajectory:
    reply = httpx.get(
        f"{server.http_url}/api/trials/{recording.trial}/trajectory", params={"job": recording.job}, timeout=60
    )
    assert reply.status_code == 200, reply.text
    return Trajectory.model_validate_json(reply.text)


@pytest.mark.parametrize("protocol", ["grpc", "http"])
def test_gemini_cli_final_answer_is_the_last_steps_message(server, protocol):
    """Gemini CLI 0.61.0 tells each response's parts in its own shape (`text`, `thought`, `functionCall`,
    no `type`): the answer it gave last is the trajectory's last message, its thoughts are reasoning."""
    recording = replay(server, f"gemini-cli-0.61.0-three-turn-{protocol}")
    steps = [s for s in _trajectory(server, recording).steps if s.source == "agent"]
    assert steps[-1].message == ANSWER
    first = recording.episode.turns[0]
    assert (steps[0].message, steps[0].reasoning_content) == (first.text, first.reasoning)
    assert [[c.function_name for c in s.tool_calls or []] for s in steps] == [["write_file"], ["read_file"], []]


@pytest.mark.parametrize("stem", ["gemini-cli-0.61.0-three-turn-http", "claude-code-2.1.197-three-turn-http"])
def test_files_touched_keeps_a_path_outside_the_known_workspaces_absolute(server, stem):
    recording = replay(server, stem)
    behavior = _get(server, f"/api/trials/{recording.trial}/behavior", job=recording.job)
    assert behavior["files_touched"]["value"] == [f"{recording.workspace}/hello.txt"]


def _row(server, recording) -> dict:
    return _get(server, f"/api/trials/{recording.trial}", job=recording.job)


@pytest.mark.parametrize("protocol", ["grpc", "http"])
def test_a_claude_code_side_call_counts_but_is_neither_the_model_nor_a_step(server, protocol):
    """Claude Code 2.1.197 titles its session with a call of its own (query_source=generate_session_title,
    another model): its tokens and cost count, its model is not the trial's, and its text is no step's."""
    recording = replay(server, f"claude-code-2.1.197-three-turn-{protocol}")
    (side,) = [s for s in recording.served if s.side]
    main = [s for s in recording.served if not s.side]
    turns = recording.episode.turns
    row = _row(server, recording)
    assert row["model"] == main[0].model != side.model
    # Claude Code's input counts exclude the cache; the trial's include it (GenAI semconv).
    assert row["n_input_tokens"]["value"] == SIDE_TURN.usage.input + sum(
        t.usage.input + t.usage.cached + t.usage.cache_write for t in turns
    )
    assert row["n_output_tokens"]["value"] == SIDE_TURN.usage.output + sum(t.usage.output for t in turns)
    assert row["n_steps"]["value"] == len(turns)
    calls = _get(server, "/api/spans", trial=recording.trial, job=recording.job, kind="llm_request")["items"]
    assert [(c["model"], c["side_call"]) for c in calls] == [(side.model, "generate_session_title")] + [
        (m.model, None) for m in main
    ]
    trajectory = _trajectory(server, recording)
    steps = [s for s in trajectory.steps if s.source == "agent"]
    assert trajectory.agent.model_name == main[0].model and {s.model_name for s in steps} == {main[0].model}
    assert [s.message for s in steps] == [t.text or "" for t in turns]
    assert SIDE_TURN.text not in json.dumps(trajectory.model_dump(mode="json"))


def test_the_agent_is_named_by_its_own_telemetry(server):
    """No harbor.agent.* attribute in these runs: Claude Code and Codex name themselves by their service
    (claude-code 2.1.197, codex_exec 0.171.0); Gemini CLI by gen_ai.agent.name, and its service.version is
    Node's (v20.20.2), no version of its own."""
    claude = replay(server, "claude-code-2.1.197-three-turn-http")
    row = _row(server, claude)
    assert (row["agent"], row["agent_version"]) == ("claude-code", "2.1.197")
    agent = _trajectory(server, claude).agent
    assert (agent.name, agent.version) == ("claude-code", "2.1.197")
    assert _row(server, replay(server, "codex-0.171.0-three-turn-http"))["agent_version"] == "0.171.0"
    gemini = _row(server, replay(server, "gemini-cli-0.61.0-three-turn-http"))
    assert (gemini["agent"], gemini["agent_version"]) == ("gemini-cli", None)


def test_harbors_own_traces_export_accepts_the_exported_trial(server, tmp_path):
    """`harbor traces export` (Harbor's CLI, as installed) reads the job directory harborlight writes for a
    Claude Code run that streamed without a harness: it needs the trial's result.json and its agent."""
    recording = replay(server, "claude-code-2.1.197-three-turn-http")
    out = tmp_path / "jobs"
    export = subprocess.run(
        [
            sys.executable,
            "-m",
            "harborlight.cli.main",
            "export-job",
            recording.job,
            "--out",
            str(out),
            "--server",
            server.http_url,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert export.returncode == 0, export.stderr
    harbor = Path(sys.executable).parent / "harbor"
    trial_dir = out / recording.job / recording.trial
    traces = subprocess.run(
        [str(harbor), "traces", "export", "-p", str(trial_dir), "--no-push"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert traces.returncode == 0, traces.stdout + traces.stderr
    assert f"Exported {len(recording.episode.turns)} rows" in traces.stdout
