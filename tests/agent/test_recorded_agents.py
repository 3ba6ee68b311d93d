"""What harborlight answers about the real agents' recorded runs (tests/real_agents/fixtures: the raw OTLP
each pinned agent sent while it played a scripted episode against a fake provider, and what the fake
served). The expectations come from the episode's script and the agents' own records, never from our
writer; the telemetry is replayed as it was received (OTLP/JSON over HTTP)."""

import json

import httpx
import pytest
from harbor.models.trajectories import Trajectory

from tests.agent.otlp_build import post
from tests.real_agents.episodes import ANSWER
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
    reply = httpx.get(f"{server.http_url}/api/trials/{recording.trial}/trajectory", params={"job": recording.job},
                      timeout=60)
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
