"""last_agent_message on GET /api/trials/{trial}/behavior, from what real agents recorded: Claude Code,
Codex and Gemini CLI's own telemetry (tests/real_agents/fixtures), replayed with `harborlight import
otlp`. The expected text is what the fake model provider served as the closing reply of the episode
(tests/real_agents/episodes.py), never what harborlight wrote."""

import httpx
import pytest

from tests.real_agents.cases import replayed

STEMS = ("claude-code-2.1.197-three-turn-grpc", "codex-0.171.0-three-turn-grpc", "gemini-cli-0.61.0-three-turn-grpc")


@pytest.mark.parametrize("stem", STEMS)
def test_the_agents_closing_reply_is_its_last_message(stem, server, tmp_path):
    case = replayed(stem, server, tmp_path)
    row = httpx.get(
        f"{server.http_url}/api/trials/{case.recording.trial}/behavior", params={"job": case.recording.job}, timeout=120
    ).json()
    assert row["last_agent_message"] == {"value": case.expected.answer, "provenance": "measured", "note": None}


def test_a_trial_without_agent_telemetry_has_no_last_message(server, unique):
    from tests.agent.otlp_build import Traces  # a harness's lifecycle spans only: no model call, no message

    job, trial = f"quiet-{unique}", f"quiet-{unique}-1"
    spans = Traces(resource={"service.name": "harbor", "harbor.job.name": job, "harbor.trial.name": trial})
    spans.span("harbor.trial", dur_ms=1000)
    spans.send(server)
    row = httpx.get(f"{server.http_url}/api/trials/{trial}/behavior", timeout=120).json()
    assert row["last_agent_message"]["value"] is None
    assert row["last_agent_message"]["note"].startswith(f"trial {trial!r} has no model calls")
