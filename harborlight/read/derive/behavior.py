"""How the agent worked (conduct, not correctness), from its tool calls and model calls."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Never

from harborlight.read.derive.localization import Localization, derive_localization
from harborlight.read.derive.provenance import Valued, derived, inferred, measured, unavailable
from harborlight.read.derive.records import AgentCall, ModelCall, ToolCategory
from harborlight.read.derive.trajectory_steps import clock_usable

WORKSPACE_ROOTS = ("/workspace/", "/testbed/", "/app/", "/repo/", "/src/", "./")
_EXPLORE = (ToolCategory.SEARCH, ToolCategory.READ)


@dataclass(frozen=True, slots=True)
class TokenPoint:
    """One model call in the token series."""

    input_tokens: int
    cached_tokens: int | None


@dataclass(frozen=True, slots=True)
class Behavior:
    category_freq: Valued[dict[str, int]]
    name_freq: Valued[dict[str, dict[str, int]]]
    files_touched: Valued[tuple[str, ...]]
    n_failed_calls: Valued[int]
    has_step_clock: Valued[bool]
    first_edit_call: Valued[int]
    time_to_first_edit: Valued[float]
    n_redundant_reads: Valued[int]
    n_repeated_failed_calls: Valued[int]
    edit_test_cycles: Valued[int]
    exploration_per_edit: Valued[float]
    token_series: Valued[tuple[TokenPoint, ...]]
    cache_ratio: Valued[float]
    total_reasoning_tokens: Valued[int]
    localization: Valued[Localization]


def relative_path(path: str, roots: tuple[str, ...] = WORKSPACE_ROOTS) -> str:
    """A target made relative to a known workspace root, so two agents' sets compare; any other path as
    the agent named it (absolute, or relative to its working directory)."""
    for root in roots:
        if path.startswith(root):
            return path[len(root) :]
    return path


def _key(call: AgentCall) -> tuple[str, tuple[str, ...], str | None]:
    return call.name, tuple(sorted(call.targets)), call.args_key


def step_clock(calls: tuple[AgentCall, ...], start: float | None) -> bool | None:
    """True when call timestamps span at least a second; None with fewer than two timestamps."""
    stamps = [c.timestamp for c in calls if c.timestamp is not None]
    if start is not None:
        stamps.append(start)
    return clock_usable(stamps)


def redundant_reads(calls: tuple[AgentCall, ...]) -> int:
    """Reads or searches repeating an exact earlier one (same tool, targets and arguments),
    with no edit of any of those targets in between."""
    seen: set[tuple[str, tuple[str, ...], str | None]] = set()
    count = 0
    for call in calls:
        if call.category is ToolCategory.EDIT:
            touched = set(call.targets)
            seen = {k for k in seen if not touched.intersection(k[1])} if touched else set()
        elif call.category in _EXPLORE:
            key = _key(call)
            count += key in seen
            seen.add(key)
    return count


def repeated_failed_calls(calls: tuple[AgentCall, ...]) -> int:
    """Calls repeating the tool, targets and arguments of an earlier call that failed."""
    failed: set[tuple[str, tuple[str, ...], str | None]] = set()
    count = 0
    for call in calls:
        key = _key(call)
        count += key in failed
        if call.failed:
            failed.add(key)
    return count


def edit_test_cycles(calls: tuple[AgentCall, ...]) -> int:
    """Edits followed by running something (an execute call) before the next edit."""
    cycles, pending_edit = 0, False
    for call in calls:
        if call.category is ToolCategory.EDIT:
            pending_edit = True
        elif call.category is ToolCategory.EXECUTE and pending_edit:
            cycles, pending_edit = cycles + 1, False
    return cycles


def derive_behavior(
    calls: tuple[AgentCall, ...],
    model_calls: tuple[ModelCall, ...] = (),
    *,
    calls_recorded: bool = True,
    agent_start: float | None = None,
    gold_patch: str | None = None,
) -> Behavior:
    """calls_recorded=False: the trial has no tool-call telemetry at all (not "zero calls").
    agent_start: the harbor.agent_execution start, the zero of time_to_first_edit.
    gold_patch: the task's reference fix (a unified diff), when its dataset recorded one."""
    calls = tuple(sorted(calls, key=lambda c: c.index))
    tokens = _tokens(model_calls)
    if not calls_recorded:
        none: Valued[Never] = unavailable("no tool-call telemetry")
        return Behavior(
            none,
            none,
            none,
            none,
            none,
            none,
            none,
            none,
            none,
            none,
            none,
            *tokens,
            derive_localization(none, gold_patch),
        )
    cats = Counter(c.category.value for c in calls)
    names: dict[str, Counter[str]] = {}
    for c in calls:
        names.setdefault(c.category.value, Counter())[c.name] += 1
    edits = [c for c in calls if c.category is ToolCategory.EDIT]
    n_explore = sum(cats[c.value] for c in _EXPLORE)
    with_status = [c for c in calls if c.failed is not None]
    first_edit = edits[0] if edits else None
    zero = (
        agent_start
        if agent_start is not None
        else min((c.timestamp for c in calls if c.timestamp is not None), default=None)
    )
    clock = step_clock(calls, agent_start)
    touched = inferred(tuple(sorted({relative_path(t) for c in edits for t in c.targets})))
    return Behavior(
        category_freq=inferred(dict(sorted(cats.items()))),
        name_freq=measured({cat: dict(sorted(counter.items())) for cat, counter in sorted(names.items())}),
        files_touched=touched,
        n_failed_calls=inferred(sum(bool(c.failed) for c in with_status))
        if with_status
        else unavailable("no call reported success or failure"),
        has_step_clock=derived(clock) if clock is not None else unavailable("fewer than two timestamps"),
        first_edit_call=inferred(first_edit.index) if first_edit else unavailable("no edit call"),
        time_to_first_edit=_time_to_first_edit(first_edit, zero, clock),
        n_redundant_reads=inferred(redundant_reads(calls)),
        n_repeated_failed_calls=inferred(repeated_failed_calls(calls))
        if with_status
        else unavailable("no call reported success or failure"),
        edit_test_cycles=inferred(edit_test_cycles(calls)),
        exploration_per_edit=derived(n_explore / len(edits)) if edits else unavailable("no edit call"),
        token_series=tokens[0],
        cache_ratio=tokens[1],
        total_reasoning_tokens=tokens[2],
        localization=derive_localization(touched, gold_patch),
    )


def _time_to_first_edit(first_edit: AgentCall | None, zero: float | None, clock: bool | None) -> Valued[float]:
    if first_edit is None:
        return unavailable("no edit call")
    if not clock:
        return unavailable("flat step clock" if clock is False else "no step clock")
    if first_edit.timestamp is None or zero is None:
        return unavailable("first edit has no timestamp")
    return derived(first_edit.timestamp - zero)


def _tokens(model_calls: tuple[ModelCall, ...]) -> tuple[Valued[tuple[TokenPoint, ...]], Valued[float], Valued[int]]:
    ordered = sorted(model_calls, key=lambda m: (m.timestamp is None, m.timestamp or 0.0))
    series = tuple(TokenPoint(m.input_tokens, m.cached_tokens) for m in ordered if m.input_tokens is not None)
    both = [m for m in ordered if m.input_tokens is not None and m.cached_tokens is not None]
    total_in = sum(m.input_tokens or 0 for m in both)
    reasoning = [m.reasoning_tokens for m in ordered if m.reasoning_tokens is not None]
    return (
        measured(series) if series else unavailable("no model call reported input tokens"),
        derived(math.fsum(m.cached_tokens or 0 for m in both) / total_in)
        if total_in
        else unavailable("no model call reported input and cached tokens"),
        measured(sum(reasoning)) if reasoning else unavailable("not reported"),
    )
