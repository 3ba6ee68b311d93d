"""The agents themselves (pinned in node/package.json), run non-interactively against the fake providers
with their own OpenTelemetry export pointed at a running harborlight over gRPC and over HTTP: every answer
harborlight gives matches what the fake served. Claude Code runs logs-only and logs+traces; Codex and
Gemini CLI always send their spans. An agent that is not installed is a skip with the reason.
"""

import pytest

from tests.real_agents.cases import live
from tests.real_agents.checks import ASPECTS, check
from tests.real_agents.faults import mark_known_fault
from tests.real_agents.run_agent import skip_reason

# (agent, episode, protocol, traces): the three-turn episode in every protocol and signal mix, each
# variation once.
LIVE = [
    ("claude-code", "three-turn", "grpc", False),
    ("claude-code", "three-turn", "grpc", True),
    ("claude-code", "three-turn", "http", False),
    ("claude-code", "three-turn", "http", True),
    ("claude-code", "edit", "http", True),
    ("claude-code", "failing-command", "grpc", False),
    ("claude-code", "rate-limited", "grpc", True),
    ("claude-code", "subagent", "http", True),
    ("codex", "three-turn", "grpc", True),
    ("codex", "three-turn", "http", True),
    ("codex", "edit", "grpc", True),
    ("codex", "failing-command", "http", True),
    ("codex", "rate-limited", "grpc", True),
    ("gemini-cli", "three-turn", "grpc", True),
    ("gemini-cli", "three-turn", "http", True),
    ("gemini-cli", "edit", "http", True),
    ("gemini-cli", "failing-command", "grpc", True),
    ("gemini-cli", "rate-limited", "http", True),
    ("qwen-coder", "three-turn", "grpc", True),
    ("qwen-coder", "three-turn", "http", True),
    ("qwen-coder", "edit", "http", True),
    ("qwen-coder", "failing-command", "grpc", True),
    ("qwen-coder", "rate-limited", "http", True),
    # opencode exports over OTLP/HTTP only; "logs" is its default export, "logs+traces" adds the AI SDK's spans.
    ("opencode", "three-turn", "http", False),
    ("opencode", "three-turn", "http", True),
    ("opencode", "edit", "http", True),
    ("opencode", "failing-command", "http", True),
    ("opencode", "rate-limited", "http", True),
]


def _id(param) -> str:
    agent, episode, protocol, traces = param
    return f"{agent}-{episode}-{protocol}-{'logs+traces' if traces else 'logs'}"


@pytest.fixture(scope="module", params=LIVE, ids=_id)
def case(request, server, tmp_path_factory):
    agent = request.param[0]
    if reason := skip_reason(agent):
        pytest.skip(reason)
    return live(*request.param, server, tmp_path_factory.mktemp(f"live-{agent}"))


@pytest.mark.parametrize("aspect", ASPECTS)
def test_a_live_run_is_read_as_the_agent_ran_it(case, aspect, request):
    mark_known_fault(request, case, aspect)
    check(aspect, case)
