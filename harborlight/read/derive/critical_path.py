"""The critical path of a trial's agent phase: the chain of spans that decided when it ended.

Walking back from the end of the window, the path follows the span that finished last before the
cursor, descends into it the same way, and moves the cursor to its start; time when no child is on
the path is the enclosing span's own time, and time when no agent span was open at all is `idle`.
Each instant of the window is charged to exactly one span, the deepest on the path, so the steps add
up to the window. A sub-agent's model calls and tools show on the path when the main agent waited on
them; parallel work that finished earlier does not. A span without an end has no clock and is passed
through: its children take its place; a child outside its parent's interval is clipped to it.
Clocks are UNIX nanoseconds (integers); the results are seconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harborlight.read.derive.provenance import Valued, derived, inferred, unavailable

IDLE = "idle"  # no agent span open
SUBAGENT = "subagent"
MAX_STEPS = 200
_NS = 1_000_000_000


@dataclass(frozen=True, slots=True)
class SpanNode:
    """One span of the trial's tree (kinds as resolved across the trace), UNIX nanoseconds."""

    kind: str
    name: str  # the tool or model when known, else the span name
    start: int
    end: int | None  # None: no clock
    children: tuple[SpanNode, ...] = ()


@dataclass(frozen=True, slots=True)
class PathStep:
    kind: str  # the span's kind, or "idle"
    name: str
    offset_s: float  # from the window start
    duration_s: float
    in_subagent: bool  # under a sub-agent span


@dataclass(frozen=True, slots=True)
class CriticalPath:
    length_s: float  # the window: the steps add up to it
    by_kind: dict[str, float]  # seconds on the path per kind ("idle": no span open)
    in_subagents_s: float  # seconds on the path inside sub-agents
    n_steps: int
    steps: tuple[PathStep, ...]  # in time order, the first MAX_STEPS


def _clocked(nodes: Sequence[SpanNode]) -> list[SpanNode]:
    """The clocked spans of `nodes`, an unclocked one replaced by its clocked descendants, in order."""
    out: list[SpanNode] = []
    stack = list(reversed(nodes))
    while stack:
        n = stack.pop()
        if n.end is not None:
            out.append(n)
        else:
            stack.extend(reversed(n.children))
    return out


def _latest_first(nodes: Sequence[SpanNode]) -> list[tuple[int, SpanNode]]:
    """The clocked spans of `nodes` with their ends, the latest end first."""
    return sorted(((n.end, n) for n in _clocked(nodes) if n.end is not None), key=lambda e: e[0], reverse=True)


Segment = tuple[SpanNode, int, int, bool]  # (node, start, end, in a sub-agent)


@dataclass(slots=True)
class _Visit:
    """A node being walked: its interval on the path, the path point, the children still to try."""

    node: SpanNode
    lower: int
    upper: int
    in_sub: bool
    children: list[tuple[int, SpanNode]]  # (end, child)
    cursor: int
    next: int = 0


def _visit(node: SpanNode, lower: int, upper: int, in_sub: bool) -> _Visit:
    return _Visit(node, lower, upper, in_sub, _latest_first(node.children), upper)


def _walk(root: SpanNode, lower: int, upper: int, in_sub: bool, out: list[Segment]) -> None:
    """Appends (node, start, end, in_sub) segments covering [lower, upper], latest first. Depth first with
    an explicit stack (any depth); each node's children sorted once: n log n."""
    visits = [_visit(root, lower, upper, in_sub)]
    while visits:
        v = visits[-1]
        descend = None
        while v.next < len(v.children):
            end, child = v.children[v.next]
            v.next += 1
            if v.cursor <= v.lower or end <= v.lower:
                v.next = len(v.children)
                break
            if child.start >= v.cursor:  # it started after the path point: not what the node waited on
                continue
            child_end = min(end, v.cursor)
            if child_end < v.cursor:
                out.append((v.node, child_end, v.cursor, v.in_sub))
            child_start = max(child.start, v.lower)
            descend = _visit(child, child_start, child_end, v.in_sub or child.kind == SUBAGENT)
            v.cursor = child_start
            break
        if descend is not None:
            visits.append(descend)
            continue
        if v.cursor > v.lower:
            out.append((v.node, v.lower, v.cursor, v.in_sub))
        visits.pop()


def derive_critical_path(
    roots: Sequence[SpanNode], window: tuple[int, int] | None, timing_inferred: bool = False
) -> Valued[CriticalPath]:
    """`roots`: the agent's top spans (the harness's lifecycle spans left out); `window`: the agent phase."""
    if window is None:
        return unavailable("no agent window (no harbor.agent_execution span and no clocked call)")
    if not _clocked(roots):
        return unavailable("no agent span has a clock")
    start, end = window
    segments: list[Segment] = []
    _walk(SpanNode(IDLE, "(no agent span open)", start, end, tuple(roots)), start, end, False, segments)
    merged: list[Segment] = []  # the same span again (around a zero-length child) merges
    for node, a, b, in_sub in reversed(segments):
        if merged and merged[-1][0] is node and merged[-1][2] == a:
            merged[-1] = (node, merged[-1][1], b, merged[-1][3])
        else:
            merged.append((node, a, b, in_sub))
    by_kind: dict[str, int] = {}
    for node, a, b, _ in merged:
        by_kind[node.kind] = by_kind.get(node.kind, 0) + b - a
    steps = tuple(
        PathStep(node.kind, node.name, (a - start) / _NS, (b - a) / _NS, in_sub)
        for node, a, b, in_sub in merged[:MAX_STEPS]
    )
    path = CriticalPath(
        (end - start) / _NS,
        {k: v / _NS for k, v in sorted(by_kind.items())},
        sum(b - a for _, a, b, in_sub in merged if in_sub) / _NS,
        len(merged),
        steps,
    )
    how = inferred if timing_inferred else derived
    return how(path, None if len(merged) <= MAX_STEPS else f"{len(merged)} steps: the first {MAX_STEPS} listed")
