"""Where a trial's agent phase went: model-call time, tool time and the gaps, from the calls' clocks.

The window is the harness's `harbor.agent_execution` span (else the calls' own extent). Calls overlap
(parallel tool calls, a sub-agent's model calls inside the tool call that spawned it), so each kind is
measured as the union of its calls' intervals, clipped to the window, and the window is split without
double counting: model time is when at least one model call was in flight; tool time when a tool call
was and no model call; the gap when neither was (the agent's own work, the harness, waiting). So
model + tool + gap = the window. A call without an end (a log event that carried no duration) has no
clock: the sums cover the clocked calls, and the gap is then unknown.

Clocks are UNIX nanoseconds (integers, so unions are exact); the results are seconds.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from query.derive.critical_path import SpanNode
from query.derive.provenance import Valued, derived, inferred, measured, unavailable
from query.derive.records import Interval

MODEL, TOOL = "llm_request", "tool"
LONGEST = 5  # calls listed by longest_calls
NS = 1_000_000_000
Window = tuple[int, int]  # (start, end), UNIX nanoseconds


@dataclass(frozen=True, slots=True)
class TimedCall:
    """One model call or tool call with its clock, UNIX nanoseconds."""

    kind: str  # "llm_request" or "tool"
    model: str | None  # the model a model call asked
    start: int
    end: int | None  # None: no clock (no end, no duration recorded)
    inferred: bool = False  # the start was derived from the end and a duration, or rebuilt from a transcript


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


def union_length(intervals: Iterable[tuple[int, int]], window: Window) -> int:
    """Length of the union of `intervals` clipped to `window`: overlapping time counts once."""
    lo, hi = window
    clipped = sorted((max(a, lo), min(b, hi)) for a, b in intervals if min(b, hi) > max(a, lo))
    total, reach = 0, lo
    for a, b in clipped:
        if b > reach:
            total += b - max(a, reach)
            reach = b
    return total


def agent_window(agent: Interval | None, calls: Sequence[TimedCall]) -> tuple[Window | None, str | None]:
    """The agent phase and a note when it is not the harness's closed harbor.agent_execution span."""
    if agent is not None and agent.start is not None and agent.end is not None:
        return (round(agent.start * NS), round(agent.end * NS)), None
    ends = [c.end for c in calls if c.end is not None]
    if not ends:
        return None, None
    extent = (min(c.start for c in calls if c.end is not None), max(ends))
    if agent is not None and agent.start is not None:
        start = round(agent.start * NS)
        return (start, max(extent[1], start)), "harbor.agent_execution still open: the split so far"
    return extent, "no harbor.agent_execution span: the window is the calls' extent"


def derive_time_split(calls: Sequence[TimedCall], agent: Interval | None) -> TimeSplit:
    """`agent`: the trial's harbor.agent_execution interval, when recorded."""
    clocked = [c for c in calls if c.end is not None]
    untimed = len(calls) - len(clocked)
    window, window_note = agent_window(agent, calls)
    counts = derived(len(clocked)), derived(untimed)
    if not clocked:
        none = unavailable("no model or tool calls recorded" if not calls else "no call has a clock (start and end)")
        return TimeSplit(_window_value(window, window_note), none, none, none, none, *counts)
    assert window is not None  # a clocked call makes one
    how = inferred if any(c.inferred for c in clocked) else derived
    spans = {kind: [(c.start, c.end) for c in clocked if c.kind == kind] for kind in (MODEL, TOOL)}
    model = union_length(spans[MODEL], window)  # type: ignore[arg-type]
    busy = union_length(spans[MODEL] + spans[TOOL], window)  # type: ignore[arg-type]
    partial = f"{untimed} of {len(calls)} calls have no clock: not counted" if untimed else None
    by_model: dict[str, list[tuple[int, int]]] = {}
    for c in clocked:
        if c.kind == MODEL:
            by_model.setdefault(c.model or "unknown", []).append((c.start, c.end))  # type: ignore[arg-type]
    return TimeSplit(
        agent_window_s=_window_value(window, window_note),
        model_time_s=how(model / NS, partial),
        tool_time_s=how((busy - model) / NS, partial),
        gap_time_s=unavailable(f"{partial}, so the gap is unknown") if untimed
        else how((window[1] - window[0] - busy) / NS, window_note),
        model_time_by_model=how({m: union_length(v, window) / NS for m, v in sorted(by_model.items())}, partial)
        if by_model else unavailable("no model call has a clock"),
        n_timed_calls=counts[0], n_untimed_calls=counts[1],
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
    return derived(tuple(LongCall(n.kind, n.name, (n.start - zero) / NS, (n.end - n.start) / NS)  # type: ignore[operator]
                         for n in ranked))


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
        model_time_by_model=derived({m: math.fsum(v) for m, v in sorted(by_model.items())}) if by_model
        else unavailable("no trial has clocked model calls"),
    )
