"""Where a trial's agent phase went: model-call time, tool time and the gaps, from the calls' clocks.

The window is the harness's `harbor.agent_execution` span (else the calls' own extent). Calls overlap
(parallel tool calls, a sub-agent's model calls inside the tool call that spawned it), so each kind is
measured as the union of its calls' intervals, clipped to the window, and the window is split without
double counting: model time is when at least one model call was in flight; tool time when a tool call
was and no model call; the gap when neither was (the agent's own work, the harness, waiting). So
model + tool + gap = the window. A call without an end (a log event that carried no duration) has no
clock: the sums cover the clocked calls, and the gap is then unknown.

The unions are the engine's (`intervalLengthSum`, harborlight/read/statements/time_split_sql.py), over UNIX nanoseconds
clipped to `clip_bounds`; this module decides the window and what the numbers mean. Results are seconds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Never

from harborlight.read.derive.critical_path import SpanNode
from harborlight.read.derive.provenance import Valued, derived, inferred, measured, unavailable
from harborlight.read.derive.records import Interval

MODEL, TOOL = "llm_request", "tool"
LONGEST = 5  # calls listed by longest_calls
NS = 1_000_000_000
UNBOUNDED = (0, 2**62)  # clip bounds where the harness recorded no agent phase
Window = tuple[int, int]  # (start, end), UNIX nanoseconds


@dataclass(frozen=True, slots=True)
class CallTotals:
    """One trial's model and tool calls, measured by the store within the trial's clip bounds (ns)."""

    model_ns: int = 0  # union of the clocked model calls' intervals
    busy_ns: int = 0  # union of all clocked calls' intervals
    by_model_ns: dict[str, int] = field(default_factory=dict)  # union of each model's calls
    n_timed: int = 0  # calls with a clock (an end, and timing not unknown)
    n_untimed: int = 0
    first_start: int | None = None  # the clocked calls' extent, unclipped
    last_end: int | None = None
    inferred: bool = False  # some clock was inferred (a start from an end and a duration, or rebuilt)


@dataclass(frozen=True, slots=True)
class TimeSplit:
    """Seconds of the agent phase."""

    agent_window_s: Valued[float]
    model_time_s: Valued[float]
    tool_time_s: Valued[float]
    gap_time_s: Valued[float]
    model_time_by_model: Valued[dict[str, float]]  # per model: the union of its calls (models may overlap)
    n_timed_calls: Valued[int]
    n_untimed_calls: Valued[int]


@dataclass(frozen=True, slots=True)
class LongCall:
    kind: str  # "llm_request" or "tool"
    name: str  # the tool, or the model
    offset_s: float  # its start, from the agent window's start
    duration_s: float


def _ns(seconds: float) -> int:
    return round(seconds * NS)


def clip_bounds(agent: Interval | None) -> tuple[int, int]:
    """What the store clips the trial's calls to: the agent phase, open-ended where it is not closed."""
    if agent is None or agent.start is None:
        return UNBOUNDED
    return _ns(agent.start), UNBOUNDED[1] if agent.end is None else _ns(agent.end)


def agent_window(agent: Interval | None, calls: CallTotals | None) -> tuple[Window | None, str | None]:
    """The agent phase and a note when it is not the harness's closed harbor.agent_execution span."""
    if agent is not None and agent.start is not None and agent.end is not None:
        return (_ns(agent.start), _ns(agent.end)), None
    if calls is None or calls.first_start is None or calls.last_end is None:
        return None, None
    if agent is not None and agent.start is not None:
        start = _ns(agent.start)
        return (start, max(calls.last_end, start)), "harbor.agent_execution still open: the split so far"
    return (calls.first_start, calls.last_end), "no harbor.agent_execution span: the window is the calls' extent"


def derive_time_split(calls: CallTotals | None, agent: Interval | None) -> TimeSplit:
    """`calls`: the store's measure of the trial's calls within clip_bounds(agent) (None: no calls);
    `agent`: the trial's harbor.agent_execution interval, when recorded."""
    calls = calls or CallTotals()
    window, window_note = agent_window(agent, calls)
    counts = derived(calls.n_timed), derived(calls.n_untimed)
    total = calls.n_timed + calls.n_untimed
    if not calls.n_timed or window is None:
        none: Valued[Never] = unavailable(
            "no model or tool calls recorded" if not total else "no call has a clock (start and end)"
        )
        return TimeSplit(_window_value(window, window_note), none, none, none, none, *counts)
    how = inferred if calls.inferred else derived
    partial = f"{calls.n_untimed} of {total} calls have no clock: not counted" if calls.n_untimed else None
    return TimeSplit(
        agent_window_s=_window_value(window, window_note),
        model_time_s=how(calls.model_ns / NS, partial),
        tool_time_s=how((calls.busy_ns - calls.model_ns) / NS, partial),
        gap_time_s=unavailable(f"{partial}, so the gap is unknown")
        if calls.n_untimed
        else how((window[1] - window[0] - calls.busy_ns) / NS, window_note),
        model_time_by_model=how({m: v / NS for m, v in sorted(calls.by_model_ns.items())}, partial)
        if calls.by_model_ns
        else unavailable("no model call has a clock"),
        n_timed_calls=counts[0],
        n_untimed_calls=counts[1],
    )


def _window_value(window: Window | None, note: str | None) -> Valued[float]:
    if window is None:
        return unavailable("no harbor.agent_execution span and no clocked call")
    length = (window[1] - window[0]) / NS
    return measured(length) if note is None else derived(length, note)


def longest_calls(roots: Sequence[SpanNode], window_start: int | None) -> Valued[tuple[LongCall, ...]]:
    """The LONGEST longest model and tool calls of a trial's span tree, longest first (a group, which only
    brackets a same-named call, is not one)."""
    found: list[SpanNode] = []
    stack = list(roots)
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.kind in (MODEL, TOOL) and node.end is not None:
            found.append(node)
    if not found:
        return unavailable("no clocked model or tool call in the trace")
    zero = window_start if window_start is not None else min(n.start for n in found)
    ranked = sorted(found, key=lambda n: (n.start - n.end, n.start))[:LONGEST]  # type: ignore[operator]
    return derived(
        tuple(
            LongCall(n.kind, n.name, (n.start - zero) / NS, (n.end - n.start) / NS)  # type: ignore[operator]
            for n in ranked
        )
    )


@dataclass(frozen=True, slots=True)
class JobTimeSplit:
    """The trials' splits summed (seconds): each field over the trials that have it, the note says how many."""

    n_trials: Valued[int]  # finished trials summed
    agent_window_s: Valued[float]
    model_time_s: Valued[float]
    tool_time_s: Valued[float]
    gap_time_s: Valued[float]
    model_time_by_model: Valued[dict[str, float]]


def _summed(values: Sequence[Valued[float]], what: str) -> Valued[float]:
    known = [v for v in values if v.value is not None]
    if not known:
        return unavailable(f"no trial has {what}")
    note = None if len(known) == len(values) else f"{len(known)} of {len(values)} trials have {what}"
    how = inferred if any(v.provenance == "inferred" for v in known) else derived
    return how(math.fsum(v.value for v in known if v.value is not None), note)


def sum_time_splits(splits: Sequence[TimeSplit]) -> JobTimeSplit:
    by_model: dict[str, list[float]] = {}
    for s in splits:
        for model, seconds in (s.model_time_by_model.value or {}).items():
            by_model.setdefault(model, []).append(seconds)
    return JobTimeSplit(
        n_trials=derived(len(splits)),
        agent_window_s=_summed([s.agent_window_s for s in splits], "an agent window"),
        model_time_s=_summed([s.model_time_s for s in splits], "clocked model calls"),
        tool_time_s=_summed([s.tool_time_s for s in splits], "clocked tool calls"),
        gap_time_s=_summed([s.gap_time_s for s in splits], "a known gap"),
        model_time_by_model=derived({m: math.fsum(v) for m, v in sorted(by_model.items())})
        if by_model
        else unavailable("no trial has clocked model calls"),
    )
