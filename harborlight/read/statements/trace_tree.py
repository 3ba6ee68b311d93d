"""Trace-level resolution of agent events (pure): the span tree, and the kinds only a tree tells.

- An agent-like span (rule resolve="agent") is a `session` at the top of its trace (the run), a `subagent`
  when a tool span or an agent-like span below the top is among its ancestors (an agent another agent or a
  tool invoked), else a `group`: the run's own agent under a workflow root (openai-agents' agent under
  `Agent workflow`, ADK's `invoke_agent` under `invoke_workflow`, LangGraph's agent node runs), one session.
- A span that only brackets one child of the same name is a `group` (`brackets`: a view of the trace; the
  keeper stores the other kinds only, so a call that brackets a call of its name is still counted).
- A non-leaf `group` directly under a tool span that reaches a model call is a `subagent`
  (Laminar names sub-agent spans after the sub-agent, with no kind of their own).
- A span whose parent was not received is kept as a root and flagged `orphan`; arrival order does
  not matter, so late spans take their place whenever the trace is read again.
- The keeper stores these kinds (harborlight/summaries/tree_kinds.py), so the trace route reads them
  back: the tree of its own output is the same tree (idempotent).
- A record hangs under its parent of its own job and trial, else under the trace's only record by that id: a trace
  sent again under another trial (a replayed recording) is a tree of its own, one node per record.
- Log events hang under the span they were emitted in, when that span is present.
- Derived child records (reasoning, output, user text a span carried; Provenance kind `derived`)
  share their carrier's SpanId and hang under it: their ParentSpanId is the carrier's EventId.
"""

from collections import defaultdict

from pydantic import BaseModel

from harborlight.read.statements.agent_events import AgentEvent


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


def node_key(event: AgentEvent) -> tuple[str, str, str, str]:
    """A record's place: its trace sent under one job and trial (a trace sent again under another trial is a
    run of its own: harborlight/agent/twins.py), and its EventId."""
    return event.job or "", event.trial or "", event.trace_id, event.event_id


def _order(event: AgentEvent) -> tuple:
    """Start time; at a carrier's start, its derived records first, in the order they were found
    (`<carrier>:<kind>:<n>`)."""
    if _derived(event):
        return event.start_unix_nano, 0, int(event.event_id.rsplit(":", 1)[1]), event.event_id
    return event.start_unix_nano, 1, 0, event.event_id


def _parent_key(event: AgentEvent, places: dict[tuple[str, str], list[tuple]]) -> tuple | None:
    """The place of the record `event` hangs under: of the records of its trace by that EventId, the one of its
    own job and trial, else the only one (a record naming another trial than its parent's); none when the
    parent was not received, or several other trials sent it (a trace sent again: each copy is its own run)."""
    parent = _parent_id(event)
    if not parent:
        return None
    found = places.get((event.trace_id, parent), [])
    own = node_key(event)
    same = [k for k in found if k[:2] == own[:2]]
    chosen = same or (found if len(found) == 1 else [])
    return chosen[0] if chosen and chosen[0] != own else None


def build_tree(events: list[AgentEvent], brackets: bool = True) -> TraceTree:
    """The tree, read iteratively in linear time (plus sorting siblings): any depth; one node per record, whatever
    the records repeat. `brackets`: a span bracketing one child of its name is a group."""
    places: dict[tuple[str, str], list[tuple]] = defaultdict(list)
    for e in events:
        if not _derived(e):
            places[(e.trace_id, e.event_id)].append(node_key(e))
    children: dict[tuple, list[AgentEvent]] = defaultdict(list)
    roots: list[AgentEvent] = []
    orphans: set[tuple] = set()
    for event in events:
        parent_key = _parent_key(event, places)
        if parent_key is not None:
            children[parent_key].append(event)
        else:
            roots.append(event)
            if (event.source == "otel_traces" or _derived(event)) and _parent_id(event):
                orphans.add(node_key(event))
    nodes = [_new(e, orphans) for e in sorted(roots, key=_order)]
    # Top-down (explicit stack): each node's kind from the rules and its ancestors, as its ancestors
    # were resolved before their own children were read (below); (node, parent, under an agent or a tool).
    order: list[tuple[TraceNode, TraceNode | None]] = []
    stack: list[tuple[TraceNode, TraceNode | None, bool]] = [(n, None, False) for n in reversed(nodes)]
    while stack:
        node, parent, under_agent = stack.pop()
        node.kind = _resolve(node.event, parent is not None, under_agent, node.orphan)
        order.append((node, parent))
        # popped: a record sent twice under one trial is two nodes, its children under the first only
        kids = [_new(k, orphans) for k in sorted(children.pop(node_key(node.event), []), key=_order)]
        node.children = kids
        below = under_agent or node.kind == "tool" or (node.event.resolve == "agent" and parent is not None)
        stack.extend((k, node, below) for k in reversed(kids))
    # Bottom-up (children before their parents): what only the subtree tells.
    pre_kinds = {id(node): node.kind for node, _ in order}
    reaches_model: dict[int, bool] = {}
    for node, parent in reversed(order):
        span_kids = [c for c in node.children if c.event.source == "otel_traces" and not _derived(c.event)]
        if (
            brackets
            and len(span_kids) == 1
            and span_kids[0].event.name == node.event.name
            and node.kind not in ("session", "subagent")
        ):
            node.kind = "group"
        below = any(c.kind == "llm_request" or reaches_model[id(c)] for c in node.children)
        if node.kind == "group" and parent is not None and pre_kinds[id(parent)] == "tool" and below:
            node.kind = "subagent"
        reaches_model[id(node)] = below
    kinds: dict[str, int] = defaultdict(int)
    for node, _ in order:
        kinds[node.kind] += 1
    return TraceTree(roots=nodes, events=len(events), orphans=len(orphans), kinds=dict(kinds))


def _new(event: AgentEvent, orphans: set[tuple]) -> TraceNode:
    return TraceNode(event=event, kind=event.kind, orphan=node_key(event) in orphans, children=[])


def _resolve(event: AgentEvent, has_parent: bool, under_agent: bool, orphan: bool) -> str:
    """`under_agent`: a tool span or an agent span below the top is among the ancestors. A stored
    `subagent` holds: the rules never say it of an agent span, the keeper found it over the whole trace
    (harborlight/summaries/tree_kinds.py), and a read of part of the trace (one trial's rows of it) must not
    undo it."""
    if event.resolve == "agent":
        if orphan and not has_parent:
            return event.kind  # the parent was not seen: keep what the rules (or the keeper) said
        if not has_parent:
            return "session"
        return "subagent" if under_agent or event.kind == "subagent" else "group"
    if event.resolve == "root_session":
        return "session" if not has_parent and not orphan else "group"
    return event.kind


def walk(nodes: list[TraceNode]):
    """Every node under `nodes`, depth first in the tree's order; iterative."""
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))
