"""A trace's `totals`: what the producer itself said the run added up to, shown as it said it and never
recomputed from the calls. Two kinds of evidence: an ATIF trajectory's `final_metrics` (each trajectory's,
a sub-agent's too, verbatim), and the token and cost counters an agent exports as OTLP metrics (their
points totalled per metric, model and type as the counter defines them: delta points added up, a
cumulative series' latest point). null with the reason when the producer sent neither."""

from __future__ import annotations

import json
from dataclasses import dataclass

from harborlight.read.derive.provenance import Valued, measured, unavailable

# The producers' own token and cost counters: metric -> the point attribute naming the token type.
# Claude Code: delta sums (claude_code.token.usage type input/output/cacheRead/cacheCreation; cost in USD);
# Gemini CLI: a cumulative sum (type input/output/cache/thought/tool); Codex: a per-turn histogram whose
# point sums are its counts (token_type input/cached_input/output/reasoning_output/total).
COUNTERS: dict[str, str | None] = {
    "claude_code.token.usage": "type",
    "claude_code.cost.usage": None,
    "gemini_cli.token.usage": "type",
    "codex.turn.token_usage": "token_type",
}
NONE_SENT = (
    "the producer sent no totals: no ATIF final_metrics and no token or cost counter (" + ", ".join(COUNTERS) + ")"
)


@dataclass(frozen=True, slots=True)
class FinalMetrics:
    """One trajectory's final_metrics, as the trajectory carries it."""

    agent: str | None  # the trajectory's agent name
    trajectory_id: str | None  # a sub-agent trajectory's id (None for the main one, when it has none)
    final_metrics: dict[str, object]


@dataclass(frozen=True, slots=True)
class CounterTotal:
    """One counter's total for one model and token type, as the producer's points add up."""

    metric: str
    model: str | None
    type: str | None  # the token type the point names; None for a counter without one (cost)
    unit: str | None
    value: float
    points: int  # the points behind it


@dataclass(frozen=True, slots=True)
class Totals:
    final_metrics: tuple[FinalMetrics, ...]
    counters: tuple[CounterTotal, ...]


# ATIF's final_metrics is a flat object (its `extra` one level more); deeper is not final_metrics, and an
# answer nesting deeper than this is more than some JSON readers follow.
MAX_FINAL_METRICS_NESTING = 32


def _nests_within(value: object, levels: int) -> bool:
    """Whether `value` (parsed JSON) nests objects and arrays at most `levels` deep; iterative."""
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            if level > levels:
                return False
            stack.extend((v, level + 1) for v in (item.values() if isinstance(item, dict) else item))
    return True


def final_metrics_of(agent: str | None, trajectory_id: str | None, text: str) -> FinalMetrics | None:
    """The attribute's JSON object, or None when it is not one (nothing is made up from a broken text),
    or nests deeper than MAX_FINAL_METRICS_NESTING."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: deeper than Python's reader follows
        return None
    if not isinstance(value, dict) or not _nests_within(value, MAX_FINAL_METRICS_NESTING):
        return None
    return FinalMetrics(agent or None, trajectory_id or None, value)


def producer_totals(final_metrics: list[FinalMetrics], counters: list[CounterTotal]) -> Valued[Totals]:
    """The totals the producer sent, measured (the guide's marker): final_metrics read verbatim, and a
    counter's value as its points define it (a delta counter's value is its points added up; nothing of
    the calls is summed)."""
    if not final_metrics and not counters:
        return unavailable(NONE_SENT)
    totals = Totals(
        tuple(final_metrics), tuple(sorted(counters, key=lambda c: (c.metric, c.model or "", c.type or "")))
    )
    sources = (["each trajectory's final_metrics, verbatim"] if final_metrics else []) + (
        ["the producer's counters per model and type: delta points added up, a cumulative series' latest point"]
        if counters
        else []
    )
    return measured(totals, "; ".join(sources))
