"""The faults harborlight still has on real agents' telemetry, each marking exactly the aspects it breaks
(tests/real_agents/checks.py names them) in the replayed fixtures and the live runs.

A row is removed by whoever fixes its fault: the mark is strict, so a fixed fault fails as XPASS until
its row goes.
"""

from collections.abc import Callable
from dataclasses import dataclass

import pytest


@dataclass(frozen=True)
class Fault:
    reason: str
    agent: str
    aspects: tuple[str, ...]
    when: Callable = lambda case: True  # noqa: E731  (of the case: episode, signal mix)


def _episode(*names: str) -> Callable:
    return lambda case: case.recording.episode_name in names


def _default_export(case) -> bool:
    """opencode without experimental.openTelemetry: its Effect spans and logs only (recorded as "-logs")."""
    return not case.recording.traces


def _ai_sdk(case) -> bool:
    return case.recording.traces


# A new fault gets a row: Fault(reason, agent, aspects[, when]).
FAULTS: tuple[Fault, ...] = (
    # opencode 1.18.33, default export: Effect spans (LLM.run with no attributes, Tool.execute with tool.name,
    # tool.call_id, session.id, message.id) and Effect logs; no rule matches them.
    Fault(
        "opencode's default Effect spans match no rule (LLM.run has no attributes; Tool.execute's tool.name, "
        "tool.call_id, session.id are not read): 0 model calls, 0 tools, no trial model, no trajectory (404)",
        "opencode",
        (
            "calls",
            "tokens",
            "tools",
            "behavior",
            "prompt",
            "answer",
            "identity",
            "trajectory",
            "steps",
            "step_tools",
            "harbor_export",
            "trace",
        ),
        _default_export,
    ),
    # opencode with experimental.openTelemetry: the AI SDK's spans (ai.streamText > ai.streamText.doStream,
    # ai.toolCall) are read, but for these.
    Fault(
        "opencode's refused call is an ai.streamText.doStream with status ERROR 'Rate limit reached for requests' "
        "and an exception event (AI_APICallError), no HTTP status attribute: read as a status-200 call with no "
        "tokens, not a 429",
        "opencode",
        ("calls", "rate_limits"),
        lambda case: _ai_sdk(case) and _episode("rate-limited")(case),
    ),
)


def mark_known_fault(request: pytest.FixtureRequest, case, aspect: str) -> None:
    reasons = [f.reason for f in FAULTS if f.agent == case.recording.agent and aspect in f.aspects and f.when(case)]
    if reasons:
        request.applymarker(pytest.mark.xfail(strict=True, reason="; ".join(reasons)))
