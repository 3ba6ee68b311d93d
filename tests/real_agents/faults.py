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


def _edits(case) -> bool:
    return any(t.category == "edit" for t in case.expected.tools)


def _traces(case) -> bool:
    return case.recording.traces


def _rate_limited(case) -> bool:
    return case.recording.episode_name == "rate-limited"


def _fails(case) -> bool:
    return any(t.fails for t in case.expected.tools)


_SPAN_KEPT_CONTENT = ("the trajectory's tool arguments are {} when a call's span is kept over its log event, "
                      "which carries them")

FAULTS: tuple[Fault, ...] = (
    # Claude Code 2.1.197
    Fault("issue 15: the trial's model is Claude Code's session-title side call's (claude-haiku), and its agent "
          "and version are null though service.name and service.version arrive", "claude-code", ("identity",)),
    Fault("issue 15: the trajectory's agent is 'unknown' with no version, its model the side call's",
          "claude-code", ("trajectory",)),
    Fault("issue 15: the session-title side call is a step of the trajectory", "claude-code", ("steps",)),
    Fault("issue 15: harbor traces export refuses the trial (agent 'unknown')", "claude-code", ("harbor_export",)),
    Fault("issue 15: /behavior files_touched drops the leading / of a path outside the known workspace roots",
          "claude-code", ("behavior",), _edits),
    Fault(_SPAN_KEPT_CONTENT, "claude-code", ("step_tools",), _traces),
    # Codex 0.171.0
    Fault("issue 15: Codex's EventName is a code location (event otel/src/...rs:NNN), its event's name is in "
          "event.name: no model call, no user prompt, no final answer", "codex",
          ("calls", "tokens", "prompt", "answer", "steps")),
    Fault("issue 15: Codex's refused call (codex.api_request with status 429) is not read: its EventName is a "
          "code location", "codex", ("rate_limits",), _rate_limited),
    Fault("issue 15: Codex's tools are counted 3x/2x (exec_command span, guardian_scoring_observation span with "
          "the same call id, handle_tool_call span without a name; codex.tool_decision records), and every root "
          "span is a session", "codex", ("tools", "behavior", "trace")),
    Fault("issue 15: the trial's agent is Codex's agent_name (/root), its version null", "codex", ("identity",)),
    Fault("issue 15: the trajectory's agent is 'unknown' and it has no model", "codex", ("trajectory",)),
    Fault("issue 15: the trajectory's tool arguments are {} though codex.tool_result carries them", "codex",
          ("step_tools",)),
    Fault("issue 15: harbor traces export refuses the trial (agent 'unknown')", "codex", ("harbor_export",)),
    # Gemini CLI 0.61.0
    Fault("Gemini CLI's cached and reasoning tokens are null and its output excludes its thoughts: its llm_call "
          "span is kept, and the api_response event that carries them is dropped", "gemini-cli",
          ("calls", "tokens", "steps")),
    Fault("issue 15: Gemini CLI's final answer is missing from the trajectory (its api_response carries "
          "response_text)", "gemini-cli", ("answer",)),
    Fault("issue 15: /behavior files_touched drops the leading / of a path outside the known workspace roots",
          "gemini-cli", ("behavior",), _edits),
    Fault(_SPAN_KEPT_CONTENT, "gemini-cli", ("step_tools",)),
    Fault("Gemini CLI's failed shell command (exit code 1: metadata isError) counts as a success (its event says "
          "success: true)", "gemini-cli", ("tools", "behavior"), _fails),
    Fault("Gemini CLI's refused call (gemini_cli.api_error, 429) is no rate-limited retry of the trial: its group "
          "keeps the spans and drops the events", "gemini-cli", ("rate_limits",), _rate_limited),
)


def mark_known_fault(request: pytest.FixtureRequest, case, aspect: str) -> None:
    reasons = [f.reason for f in FAULTS
               if f.agent == case.recording.agent and aspect in f.aspects and f.when(case)]
    if reasons:
        request.applymarker(pytest.mark.xfail(strict=True, reason="; ".join(reasons)))
