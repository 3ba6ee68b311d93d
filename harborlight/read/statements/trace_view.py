"""A trace as the field guide's trace page draws it (pure): the span tree with what the view leaves
out removed, and one row per span with its bar's place on one axis.

- `hide`: kinds (the legend's labels) left out, each span of them with its subtree; `hide_span`: single
  spans (EventId) left out with their subtrees. Both travel in the query string, so a view is a link.
- The axis is the whole trace (earliest start to latest end of what is shown), or with `zoom` one span's
  own extent, and then the rows are that span's subtree.
- `left_pct` / `width_pct`: a bar's start and length as a share of the axis. Never clamped: a child that
  starts before its parent (or before the zoomed span) shows a negative left, as it happened. A span with
  no known end has `width_pct` null, never 0.
"""

from dataclasses import dataclass

from pydantic import BaseModel

from harborlight.read.statements.trace_tree import TraceNode, walk


@dataclass(frozen=True, slots=True)
class View:
    hide: frozenset[str] = frozenset()  # kinds
    hide_span: frozenset[str] = frozenset()  # EventIds
    zoom: str = ""  # an EventId; "" is the whole trace


class Axis(BaseModel):
    start_unix_nano: int
    end_unix_nano: int
    zoom: str | None


class Row(BaseModel):
    event_id: str
    parent_event_id: str | None  # the row this one hangs under, None for a root of the view
    depth: int
    kind: str
    name: str
    left_pct: float
    width_pct: float | None


def _end(node: TraceNode) -> int | None:
    e = node.event
    return None if e.end_unix_nano is None or e.timing == "unknown" else e.end_unix_nano


def shown(roots: list[TraceNode], view: View) -> tuple[list[TraceNode], int]:
    """The tree without the hidden spans and their subtrees, and how many spans that left out; iterative."""
    hidden = 0
    kept_roots: list[TraceNode] = []
    stack: list[tuple[TraceNode, list[TraceNode]]] = [(n, kept_roots) for n in reversed(roots)]
    while stack:
        n, siblings = stack.pop()
        if n.kind in view.hide or n.event.event_id in view.hide_span:
            hidden += sum(1 for _ in walk([n]))
            continue
        copy = n.model_copy(update={"children": []})
        siblings.append(copy)
        stack.extend((c, copy.children) for c in reversed(n.children))
    return kept_roots, hidden


def _find(nodes: list[TraceNode], event_id: str) -> TraceNode | None:
    return next((n for n in walk(nodes) if n.event.event_id == event_id), None)


def trace_rows(roots: list[TraceNode], view: View) -> tuple[Axis | None, list[Row]]:
    """The axis and the rows, depth first in the tree's order. `roots` is what `shown` kept. No axis
    (and no rows) when nothing shown has a clock. ValueError names a zoom span that is not shown or
    has no known end."""
    top = roots
    if view.zoom:
        span = _find(roots, view.zoom)
        if span is None:
            raise ValueError(f"zoom: no span {view.zoom!r} is shown in this trace")
        if _end(span) is None:
            raise ValueError(f"zoom: span {view.zoom!r} has no known end")
        top = [span]
        lo, hi = span.event.start_unix_nano, _end(span)
    else:
        nodes = list(walk(roots))
        if not nodes:
            return None, []
        lo = min(n.event.start_unix_nano for n in nodes)
        hi = max(_end(n) or n.event.start_unix_nano for n in nodes)
    length = hi - lo
    rows: list[Row] = []
    stack: list[tuple[TraceNode, int, str | None]] = [(n, 0, None) for n in reversed(top)]
    while stack:  # depth first, in the tree's order
        n, depth, parent = stack.pop()
        end = _end(n)
        left = 100 * (n.event.start_unix_nano - lo) / length if length else 0.0
        width = None if end is None else (100 * (end - n.event.start_unix_nano) / length if length else 0.0)
        rows.append(
            Row(
                event_id=n.event.event_id,
                parent_event_id=parent,
                depth=depth,
                kind=n.kind,
                name=n.event.name,
                left_pct=left,
                width_pct=width,
            )
        )
        stack.extend((c, depth + 1, n.event.event_id) for c in reversed(n.children))
    return Axis(start_unix_nano=lo, end_unix_nano=hi, zoom=view.zoom or None), rows
