"""The kinds only a trace's tree tells are stored (harborlight/summaries/tree_kinds.py): GET /api/spans reads what
GET /api/trials/{trial}/trace reads, a sub-agent a tool invoked included, and a parent that arrives late changes the
stored kind once the keeper resolves the trial again."""

import httpx

from harborlight.read.statements.agent_events import AgentEvent
from harborlight.read.statements.trace_tree import build_tree, node_key, walk
from harborlight.summaries.tree_kinds import tree_changes
from tests.agent.otlp_build import Traces

_CHAT = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m", "gen_ai.usage.input_tokens": 5}


def _resource(unique: str, trial: str) -> dict:
    return {"service.name": f"agent-{unique}", "harbor.job.name": f"job-{unique}", "harbor.trial.name": trial}


def _stored(server, trial: str, kind: str = "") -> dict[str, str]:
    """Span name -> kind, as GET /api/spans answers."""
    reply = httpx.get(f"{server.http_url}/api/spans", params={"trial": trial, "kind": kind, "limit": 1000})
    assert reply.status_code == 200, reply.text
    return {e["name"]: e["kind"] for e in reply.json()["items"]}


def _traced(server, trial: str) -> dict[str, str]:
    """Span name -> kind, as the trial's trace answers."""
    reply = httpx.get(f"{server.http_url}/api/trials/{trial}/trace")
    assert reply.status_code == 200, reply.text
    return {r["event"]["name"]: r["kind"] for r in _nodes(reply.json()["roots"])}


def _nodes(roots: list[dict]):
    stack = list(roots)
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node["children"])


def _delegating_run(resource: dict) -> tuple[Traces, Traces]:
    """A run whose agent calls a tool that runs another agent: the run's top (root agent, tool) and the
    sub-agent below the tool (its own span and its model call), each a request of its own."""
    top = Traces(resource)
    root = top.span("invoke_agent solver", {"gen_ai.operation.name": "invoke_agent"}, dur_ms=5000)
    tool = top.span("execute_tool delegate", {"gen_ai.operation.name": "execute_tool"}, parent=root, dur_ms=3000)
    below = Traces(resource, trace_id=top.trace_id)
    helper = below.span("invoke_agent helper", {"gen_ai.operation.name": "invoke_agent"}, parent=tool, dur_ms=2000)
    below.span("chat m", _CHAT, parent=helper, start_ms=10, dur_ms=100)
    return top, below


def test_an_agent_a_tool_invoked_is_a_subagent_in_the_spans_and_the_trace(server, unique):
    trial = f"{unique}-delegates"
    top, below = _delegating_run(_resource(unique, trial))
    top.send(server)
    below.send(server)
    assert _stored(server, trial, kind="subagent") == {"invoke_agent helper": "subagent"}
    assert _stored(server, trial) == _traced(server, trial)
    assert _traced(server, trial)["invoke_agent solver"] == "session"


def test_an_agent_under_a_workflow_root_is_one_session_and_a_group(server, unique):
    trial = f"{unique}-workflow"
    run = Traces(_resource(unique, trial))
    root = run.span("invoke_workflow pipeline", {"gen_ai.operation.name": "invoke_workflow"}, dur_ms=5000)
    agent = run.span("invoke_agent reader", {"gen_ai.operation.name": "invoke_agent"}, parent=root, dur_ms=4000)
    run.span("execute_tool read", {"gen_ai.operation.name": "execute_tool"}, parent=agent, start_ms=10, dur_ms=50)
    run.span("chat m", _CHAT, parent=agent, start_ms=100, dur_ms=100)
    run.send(server)
    kinds = {"invoke_workflow pipeline": "session", "invoke_agent reader": "group"}
    assert {n: k for n, k in _stored(server, trial).items() if n in kinds} == kinds
    assert _stored(server, trial) == _traced(server, trial)
    assert _stored(server, trial, kind="subagent") == {}


def test_a_tool_that_arrives_after_its_agent_makes_the_stored_agent_a_subagent(server, unique):
    trial = f"{unique}-late-tool"
    top, below = _delegating_run(_resource(unique, trial))
    below.send(server)  # the sub-agent first: its parent, the tool, not yet received
    assert _stored(server, trial)["invoke_agent helper"] == "group"
    top.send(server)
    assert _stored(server, trial)["invoke_agent helper"] == "subagent"
    assert _stored(server, trial) == _traced(server, trial)


def _event(event_id: str, parent: str, name: str, kind: str, resolve: str = "", trial: str = "") -> AgentEvent:
    fields = dict.fromkeys(AgentEvent.model_fields)
    fields.update(job="j" if trial else None, trial=trial or None)
    fields.update(event_id=event_id, trace_id="t", span_id=event_id, parent_span_id=parent, source="otel_traces")
    fields.update(kind=kind, kind_rule="", resolve=resolve, name=name, service="s", start_unix_nano=0, timing="")
    fields.update(tokens={k: None for k in ("input", "cached", "cache_write", "output", "reasoning")}, provenance={})
    return AgentEvent(**{k: v for k, v in fields.items() if k != "decision"})


def _kinds(events: list[AgentEvent]) -> dict[str, str]:
    return {n.event.event_id: n.kind for n in walk(build_tree(events).roots)}


def _stored_kinds(events: list[AgentEvent]) -> list[AgentEvent]:
    changes = tree_changes(events)
    return [e.model_copy(update={"kind": changes.get(node_key(e), e.kind)}) for e in events]


def test_the_trace_of_the_stored_kinds_is_the_trace_of_the_rules_kinds():
    """The trace route builds the tree again from the kinds the keeper stored: the same tree. A bracketing tool
    stays a tool when stored (a group in the trace only), the agent it invoked a sub-agent either way; a model call
    inside one of its name stays a call."""
    events = [
        _event("a", "", "invoke_agent solver", "session", "agent"),
        _event("t", "a", "ask", "tool"),
        _event("h", "t", "ask", "group", "agent"),  # an agent of the tool's name: the tool brackets it
        _event("c", "h", "chat m", "llm_request"),
        _event("c2", "c", "chat m", "llm_request"),  # a call inside a call of its name: a group in the trace
        _event("d", "a", "delegate", "tool"),
        _event("g", "d", "delegate", "group"),  # a sub-agent of no kind of its own (Laminar's)
        _event("g2", "g", "chat m2", "llm_request"),
    ]
    read = _kinds(events)
    assert read["h"] == read["g"] == "subagent" and read["t"] == read["d"] == read["c"] == "group"
    stored = _stored_kinds(events)
    assert {e.event_id: e.kind for e in stored if e.kind != read[e.event_id]} == {
        "t": "tool",
        "d": "tool",
        "c": "llm_request",
    }
    assert _kinds(stored) == read
    assert _kinds(_stored_kinds(stored)) == read


def test_a_read_of_part_of_a_trace_keeps_a_stored_subagent():
    """One trial's rows of a trace whose tool is another's: the agent below it stays what the whole trace said."""
    whole = [
        _event("t", "", "execute_tool ask", "tool"),
        _event("g", "t", "step", "group"),
        _event("h", "g", "invoke_agent helper", "group", "agent"),
        _event("c", "h", "chat m", "llm_request"),
    ]
    stored = _stored_kinds(whole)
    assert _kinds(stored)["h"] == "subagent"
    assert _kinds(stored[1:])["h"] == "subagent"


def _chain(trial: str, depth: int) -> list[AgentEvent]:
    """A run whose agent calls a tool that runs an agent that calls a tool ... `depth` agents deep."""
    events = [_event("a0", "", "invoke_agent top", "session", "agent", trial)]
    for level in range(1, depth):
        events.append(_event(f"t{level}", f"a{level - 1}", f"execute_tool ask{level}", "tool", trial=trial))
        events.append(_event(f"a{level}", f"t{level}", f"invoke_agent helper{level}", "group", "agent", trial))
    return events


def test_a_trace_sent_under_many_trials_is_one_tree_per_trial():
    """A recording replayed under other trial names (the same TraceId and EventIds): each trial's copy is a run of
    its own, one node per record, so a keeper pass over many replays costs what each one costs (with the copies
    hung under each other's records the nodes grew as copies^depth: 6 copies 5 agents deep made 12 million nodes in
    130 s, 12 copies 8 deep would never end, and the keeper's pass stalled every later read)."""
    one = _chain("x0", 8)
    copies = [e for n in range(12) for e in _chain(f"x{n}", 8)]
    nodes = list(walk(build_tree(copies).roots))
    assert len(nodes) == len(copies)
    assert {n.event.trial for n in build_tree(copies).roots} == {f"x{n}" for n in range(12)}
    expected = _kinds(one)
    for copy in range(12):
        assert {node.event.event_id: node.kind for node in nodes if node.event.trial == f"x{copy}"} == expected
    assert set(expected.values()) == {"session", "tool", "subagent"}
    changes = tree_changes(copies)
    assert len(changes) == 12 * 7 and {k[1] for k in changes} == {f"x{n}" for n in range(12)}


def test_an_agent_below_another_trials_tool_is_its_subagent():
    """Records that name a trial of their own under a parent of another trial's (only that trial sent it) hang
    under it: the helper run as its own trial below the delegating tool is a sub-agent."""
    events = [
        _event("a", "", "invoke_agent solver", "session", "agent", "outer"),
        _event("t", "a", "execute_tool delegate", "tool", trial="outer"),
        _event("h", "t", "invoke_agent helper", "group", "agent", "inner"),
        _event("c", "h", "chat m", "llm_request", trial="inner"),
    ]
    assert _kinds(events) == {"a": "session", "t": "tool", "h": "subagent", "c": "llm_request"}
