"""Per-step and per-call facts read off a trial's ATIF trajectory (the one GET /api/trials/{trial}/trajectory
and the export build from its telemetry): `steps[].dur`, the seconds until the next step opened, and
`calls[].failure`, the failure text spotted in a tool call's observation."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from harborlight.read.derive.provenance import Valued, derived, inferred, unavailable
from harborlight.read.derive.timestamps import stamp_ns

STEP_CLOCK_MIN_SPAN_S = 1.0  # timestamps spanning less than this are a flat clock (steps, calls alike)
MAX_FAILURE_LINES = 10
MAX_FAILURE_CHARS = 2000
# A line of an observation that reads as a failure: what a shell, a compiler, a test runner or a tool prints.
FAILURE_LINE = re.compile(
    r"\b(error|errors|failed|failure|fatal|exception|traceback|panic|denied|refused|not found|no such file"
    r"|cannot|can't|unable to|invalid|exited with code [1-9][0-9]*|exit code [1-9][0-9]*|exit status [1-9][0-9]*"
    r"|non-zero)\b",
    re.IGNORECASE,
)
GUESSED_SUCCESS = "no success signal: the call's span only ended without an error status"


def clock_usable(stamps: list[float]) -> bool | None:
    """True when the timestamps span at least STEP_CLOCK_MIN_SPAN_S; None with fewer than two."""
    if len(stamps) < 2:
        return None
    return max(stamps) - min(stamps) >= STEP_CLOCK_MIN_SPAN_S


@dataclass(frozen=True, slots=True)
class StepDuration:
    """One step of the trajectory: its ATIF step_id, source (user / agent / system), timestamp (ISO, as
    the trajectory has it) and `dur`, the seconds until the next step opened."""

    step_id: int | None
    source: str | None
    timestamp: str | None
    dur: Valued[float]


def step_durations(
    trajectory: dict[str, Any] | None, missing: str = "no trajectory recorded"
) -> Valued[tuple[StepDuration, ...]]:
    """The trajectory's steps with their `dur`: the next step's timestamp minus its own. The last step has
    none (no next step opened), and with a flat step clock (the step timestamps span under a second, the
    rule of has_step_clock) every dur is null rather than a zero. `missing`: why there is no trajectory."""
    if trajectory is None:
        return unavailable(missing)
    steps = [s for s in trajectory.get("steps") or () if isinstance(s, dict)]
    if not steps:
        return unavailable("the trajectory has no steps")
    times = [stamp_ns(s.get("timestamp")) for s in steps]
    clock = clock_usable([t.value / 1e9 for t in times if t.value is not None])
    rows = []
    for i, (step, at) in enumerate(zip(steps, times, strict=True)):
        nxt = times[i + 1] if i + 1 < len(steps) else None
        if clock is False:
            dur: Valued[float] = unavailable(
                f"flat step clock: the step timestamps span under {STEP_CLOCK_MIN_SPAN_S:g} s"
            )
        elif nxt is None:
            dur = unavailable("the last step: no next step opened")
        elif at.value is None:
            dur = unavailable(f"this step's clock: {at.note}")
        elif nxt.value is None:
            dur = unavailable(f"the next step's clock: {nxt.note}")
        else:
            dur = derived((nxt.value - at.value) / 1e9)
        rows.append(StepDuration(step.get("step_id"), step.get("source"), step.get("timestamp"), dur))
    return derived(tuple(rows))


def _text(content: Any) -> str | None:
    """An observation result's content: plain text, or the text of its content parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [str(p.get("text")) for p in content if isinstance(p, dict) and p.get("text")]
        return "\n".join(texts) if texts else None
    return None


def observations(trajectory: dict[str, Any] | None) -> dict[str, str]:
    """{tool_call_id: its observation's text} over the trajectory's steps (results that carry text)."""
    out: dict[str, str] = {}
    for step in (trajectory or {}).get("steps") or ():
        for result in (step.get("observation") or {}).get("results") or ():
            call_id, text = result.get("source_call_id"), _text(result.get("content"))
            if call_id and text and text.strip():
                out.setdefault(call_id, text)
    return out


def _clip(lines: list[str]) -> str:
    return "\n".join(lines[:MAX_FAILURE_LINES])[:MAX_FAILURE_CHARS]


def call_failure(failed: bool | None, observation: str | None, guessed: bool = False) -> Valued[str]:
    """The failure text of one tool call: the lines of its observation that read as a failure (FAILURE_LINE).
    null when the call did not fail, when no observation was recorded, or, for a call without a success
    signal, when no line of its observation reads as a failure. A failed call whose observation has no such
    line shows the observation's last lines (noted). `guessed`: `failed` is only inferred (a span that ended
    without an error status says the call finished, not that it worked), so the call is read as one
    without a success signal rather than as one that did not fail."""
    if failed is False and not guessed:
        return unavailable("the call did not fail")
    if observation is None:
        return unavailable(GUESSED_SUCCESS + "; no observation recorded" if guessed else "no observation recorded")
    lines = [line.strip() for line in observation.splitlines() if line.strip()]
    spotted = [line for line in lines if FAILURE_LINE.search(line)]
    if spotted:
        return inferred(
            _clip(spotted), GUESSED_SUCCESS + "; these lines of its observation read as a failure" if guessed else None
        )
    if failed:
        return inferred(
            _clip(lines[-MAX_FAILURE_LINES:]),
            "the call failed; no line reads as a failure: the observation's last lines",
        )
    return unavailable(
        GUESSED_SUCCESS + "; no failure spotted in the observation"
        if guessed
        else "no failure spotted in the observation"
    )
