"""The live feed never pairs one tenant's span with another tenant's log event as one call.

The attack: tenant A sends a Claude Code `claude_code.llm_request` span carrying tenant B's job, trial,
service and request id. A's feed showed B's model, tokens and cost (B's event, taken as the span's twin);
sent the other way round, B's own event vanished from B's feed (dropped as the twin of A's span)."""

import httpx
import pytest

from harborlight.settings import Settings
from tests.agent.otlp_build import Logs, Traces
from tests.live.test_live import SseClient
from tests.support.servers import InProcessServer

TOKENS = {"live-acme": "acme", "live-globex": "globex"}
TRACER, LOGGER = "com.anthropic.claude_code.tracing", "com.anthropic.claude_code.events"


@pytest.fixture(scope="module")
def tenants(store_dir, tmp_path_factory):
    tokens_file = tmp_path_factory.mktemp("live-auth") / "tokens"
    tokens_file.write_text("".join(f"{t} {n}\n" for t, n in TOKENS.items()))
    srv = InProcessServer(Settings(data_dir=store_dir, tokens_file=tokens_file)).start()
    yield srv
    srv.stop()


def _watch(server, token: str, job: str, count: int) -> SseClient:
    return SseClient(f"{server.http_url}/api/live?job={job}", count, {"authorization": f"Bearer {token}"})


def _send(server, token: str, message) -> None:
    kind = "traces" if isinstance(message, Traces) else "logs"
    answer = httpx.post(
        f"{server.http_url}/v1/{kind}",
        content=message.request.SerializeToString(),
        headers={"content-type": "application/x-protobuf", "authorization": f"Bearer {token}"},
    )
    assert answer.status_code == 200, answer.text


def _victims_event(resource: dict, request_id: str) -> Logs:
    logs = Logs(resource, scope=LOGGER)
    logs.event(
        {
            "event.name": "api_request",
            "model": "claude-opus-4-1",
            "request_id": request_id,
            "input_tokens": 777,
            "output_tokens": 7,
            "cost_usd": 4.2,
            "duration_ms": 500,
        },
        at_ms=1500,
        body="claude_code.api_request",
    )
    return logs


def _attackers_span(resource: dict, request_id: str) -> Traces:
    spans = Traces(resource, scope=TRACER)
    spans.span(
        "claude_code.llm_request",
        {"model": "claude-haiku-4-5", "request_id": request_id, "input_tokens": 1},
        start_ms=1000,
        dur_ms=500,
    )
    return spans


def _finish(server, token: str, resource: dict) -> None:
    """A trial span after the attack: once a watcher shows it, everything sent before has been shown."""
    marker = Traces({**resource, "service.name": "harness"})
    marker.span("harbor.trial", {}, start_ms=0, dur_ms=5000)
    _send(server, token, marker)


def _model_calls(watcher: SseClient) -> list[dict]:
    return [data["data"] for _, kind, data in watcher.events if kind == "model_call"]


@pytest.mark.parametrize("victim_first", [True, False])
def test_a_span_with_another_tenants_identity_is_never_paired_with_its_event(tenants, unique, victim_first):
    job = f"job-{unique}"
    resource = {"service.name": "claude-code", "harbor.job.name": job, "harbor.trial.name": f"{job}-t1"}
    request_id = f"req-{unique}"
    attacker = _watch(tenants, "live-acme", job, 3)  # trial_started, model_call, trial_finished
    victim = _watch(tenants, "live-globex", job, 3)
    sends = [
        ("live-globex", _victims_event(resource, request_id)),
        ("live-acme", _attackers_span(resource, request_id)),
    ]
    for token, message in sends if victim_first else reversed(sends):
        _send(tenants, token, message)
    for token in TOKENS:
        _finish(tenants, token, resource)
    attacker.wait_for(3, 10)
    victim.wait_for(3, 10)
    attacker.close()
    victim.close()
    assert _model_calls(attacker) == [
        {
            "model": "claude-haiku-4-5",
            "input_tokens": 1,
            "output_tokens": None,
            "cost_usd": None,
            "http_status": None,
            "success": True,
        }
    ]
    assert [(c["model"], c["input_tokens"], c["cost_usd"]) for c in _model_calls(victim)] == [
        ("claude-opus-4-1", 777, 4.2)
    ]
