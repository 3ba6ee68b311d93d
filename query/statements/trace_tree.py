"""Trace-level resolution of agent events (pure): the span tree, and the kinds only a tree tells.

- An agent-like span (rule resolve="agent") is a `session` at the top, and a `subagent` when a
  tool span or another agent span is among its ancestors.
- A span that only brackets one child of the same name is a `group`.
- A non-leaf `group` directly under a tool span that reaches a model call is a `subagent`
  (Laminar names sub-agent spans after the sub-agent, with no kind of their own).
- A span whose parent was not received is kept as a root and flagged `orphan`; arrival order does
  not matter, so late spans take their place whenever the trace is read again.
- Log events hang under the span they were emitted in, when that span is present.
- Derived child records (reasoning, output, user text a span carried; Provenance kind `derived`)
  share their carrier's SpanId and hang under it: their ParentSpanId is the carrier's EventId.
"""

from collections import defaultdict

from pydantic import BaseModel

from query.statements.agent_events import AgentEvent


class TraceNode(BaseModel):
    event: AgentEvent
    kind: str  # resolved kind (event.kind is what the rules alone said)
    orphan: bool
    children: list["TraceNode"]


class TraceTree(BaseModel):
    roots: list[TraceNode]
    events: int
    orphans: int
    kinds: dict[str, int]


def _derived(event: AgentEvent) -> bool:
    return event.provenance.get("kind") == "derived"


def _parent_id(event: AgentEvent) -> str:
    """The EventId of the record this one hangs under: a span's parent span, the span a log event
    was emitted in, a derived record's carrier (a span's EventId is its SpanId)."""
    return event.parent_span_id if event.source == "otel_traces" or _derived(event) else event.span_id


def _key(event: AgentEvent) -> str:
    return f"{event.trace_id}/{event.event_id}"


def _order(event: AgentEvent) -> tuple:
    """Start time; at a carrier's start, its derived records first, in the order they were found
    (`<carrier>:<kind>:<n>`)."""
    if _derived(event):
        return event.start_unix_nano, 0, int(event.event_id.rsplit(":", 1)[1]), event.event_id
    return event.start_unix_nano, 1, 0, event.event_id


def build_tree(events: list[AgentEvent]) -> TraceTree:
    parents = {_key(e): e for e in events if not _derived(e)}
    children: dict[str, list[AgentEvent]] = defaultdict(list)
    roots: list[AgentEvent] = []
    orphans: set[str] = set()
    for event in events:
        parent = _parent_id(event)
        parent_key = f"{event.trace_id}/{parent}"
        if parent and parent_key in parents and parent_key != _key(event):
            children[parent_key].append(event)
        else:
            roots.append(event)
            if (event.source == "otel_traces" or _derived(event)) and parent:
                orphans.add(event.event_id)
    order = sorted(roots, key=_order)
    nodes = [_node(e, children, orphans, ()) for e in order]
    kinds: dict[str, int] = defaultdict(int)
    for node in _walk(nodes):
        kinds[node.kind] += 1
    return TraceTree(roots=nodes, events=len(events), orphans=len(orphans), kinds=dict(kinds))


def _node(event: AgentEvent, children: dict[str, list[AgentEvent]], orphans: set[str],
          ancestors: tuple[TraceNode, ...]) -> TraceNode:
    orphan = event.event_id in orphans
    node = TraceNode(event=event, kind=event.kind, orphan=orphan, children=[])
    node.kind = _resolve(event, ancestors, orphan)
    kids = sorted(children.get(_key(event), []), key=_order)
    node.children = [_node(k, children, orphans, (*ancestors, node)) for k in kids]
    span_kids = [c for c in node.children if c.event.source == "otel_traces" and not _derived(c.event)]
    if len(span_kids) == 1 and span_kids[0].event.name == event.name and node.kind not in ("session", "subagent"):
        node.kind = "group"
    if (node.kind == "group" and ancestors and ancestors[-1].kind == "tool"
            and any(n.kind == "llm_request" for n in _walk(node.children))):
        node.kind = "subagent"
    return node


def _resolve(event: AgentEvent, ancestors: tuple[TraceNode, ...], orphan: bool) -> str:
    if event.resolve == "agent":
        if orphan and not ancestors:
            return event.kind  # the parent was not seen: keep what the rules said
        under_agent = any(a.kind == "tool" or a.event.resolve == "agent" for a in ancestors)
        return "subagent" if under_agent else "session"
    if event.resolve == "root_session":
        return "session" if not ancestors and not orphan else "group"
    return event.kind


def _walk(nodes: list[TraceNode]):
    for node in nodes:
        yield node
        yield from _walk(node.children)
