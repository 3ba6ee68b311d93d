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


def _traces(case) -> bool:
    return case.recording.traces


def _fails(case) -> bool:
    return any(t.fails for t in case.expected.tools)


_SPAN_KEPT_CONTENT = ("the trajectory's tool arguments are {} when a call's span is kept over its log event, "
                      "which carries them")

FAULTS: tuple[Fault, ...] = (
    # Claude Code 2.1.197
    Fault("issue 15: the session-title side call is a step of the trajectory", "claude-code", ("steps",)),
    Fault(_SPAN_KEPT_CONTENT, "claude-code", ("step_tools",), _traces),
    # Codex 0.171.0
    Fault("issue 15: the trial's agent and version are null though service.name (codex_exec) and service.version "
          "arrive", "codex", ("identity",)),
    Fault("issue 15: the trajectory's agent is 'unknown'", "codex", ("trajectory",)),
    Fault("Codex's failed command (exit code 1, only in its output text) counts as a success: its codex.tool_result "
          "says success: true", "codex", ("tools", "behavior"), _fails),
    Fault("issue 15: the trajectory's tool arguments are {} though codex.tool_result carries them", "codex",
          ("step_tools",)),
    Fault("issue 15: harbor traces export refuses the trial (agent 'unknown')", "codex", ("harbor_export",)),
    # Gemini CLI 0.61.0
    Fault("Gemini CLI's cached and reasoning tokens are null and its output excludes its thoughts: its llm_call "
          "span is kept, and the api_response event that carries them is dropped", "gemini-cli",
          ("calls", "tokens", "steps")),
    Fault("Gemini CLI's failed shell command (exit code 1: metadata isError) counts as a success (its event says "
          "success: true)", "gemini-cli", ("tools", "behavior"), _fails),
)


def mark_known_fault(request: pytest.FixtureRequest, case, aspect: str) -> None:
    reasons = [f.reason for f in FAULTS
               if f.agent == case.recording.agent and aspect in f.aspects and f.when(case)]
    if reasons:
        request.applymarker(pytest.mark.xfail(strict=True, reason="; ".join(reasons)))
