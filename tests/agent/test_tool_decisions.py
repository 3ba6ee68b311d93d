"""A tool call shows its permission decision (Claude Code tool_decision, Codex codex.tool_decision),
joined on the tool call id within the same trial, through GET /api/spans and the trial trace; a call
with no decision shows null."""

import httpx

from harborlight.read.statements.agent_events import AgentEvent, Tool
from harborlight.read.statements.tool_decisions import fold
from tests.agent.otlp_build import Logs, Traces

LOGGER = "com.anthropic.claude_code.events"


def _claude_logs(service: str, job: str, trial: str) -> tuple[Logs, callable]:
    logs = Logs({"service.name": service, "harbor.job.name": job, "harbor.trial.name": trial}, scope=LOGGER)

    def emit(name: str, at_ms: int, **attrs) -> None:
        logs.event(
            {"session.id": f"sess-{trial}", "event.name": name, **attrs}, at_ms=at_ms, body=f"claude_code.{name}"
        )

    return logs, emit


def _tools(server, **params) -> dict[str, dict]:
    """Tool events from GET /api/spans, by tool call id."""
    reply = httpx.get(f"{server.http_url}/api/spans", params={"kind": "tool", **params}, timeout=60)
    assert reply.status_code == 200, reply.text
    return {item["tool"]["call_id"]: item for item in reply.json()["items"]}


def _trace_tools(server, trial: str, name: str = "") -> dict[str, dict]:
    """Tool events (named `name`, if given) of the trial's trace tree, by tool call id."""
    reply = httpx.get(f"{server.http_url}/api/trials/{trial}/trace", timeout=60)
    assert reply.status_code == 200, reply.text
    found, nodes = {}, list(reply.json()["roots"])
    while nodes:
        node = nodes.pop()
        nodes += node["children"]
        if node["event"]["tool"] and name in ("", node["event"]["name"]):
            found[node["event"]["tool"]["call_id"]] = node["event"]
    return found


def test_claude_code_tool_result_shows_its_decision_and_an_undecided_call_shows_null(server, unique):
    trial = f"trial-{unique}"
    logs, emit = _claude_logs(unique, f"job-{unique}", trial)
    emit("tool_decision", 100, tool_name="Bash", tool_use_id="toolu_01", decision="reject", source="config")
    emit("tool_result", 200, tool_name="Bash", tool_use_id="toolu_01", success="false", duration_ms="5")
    emit("tool_result", 400, tool_name="Read", tool_use_id="toolu_02", success="true", duration_ms="5")
    logs.send(server)

    rejected = {"decision": "reject", "source": "config", "how": "measured"}
    for tools in (_tools(server, trial=trial), _trace_tools(server, trial)):
        assert set(tools) == {"toolu_01", "toolu_02"}  # the decision is folded on, not an event of its own
        assert tools["toolu_01"]["decision"] == rejected
        assert "decision" in tools["toolu_02"] and tools["toolu_02"]["decision"] is None  # missing, not accept


def test_a_decision_in_another_trial_with_the_same_id_does_not_leak(server, unique):
    job = f"job-{unique}"
    logs, emit = _claude_logs(unique, job, f"trial-a-{unique}")
    emit("tool_result", 200, tool_name="Read", tool_use_id="toolu_01", success="true", duration_ms="5")
    logs.send(server)
    # Same service, job and tool_use_id; another trial.
    other, emit_other = _claude_logs(unique, job, f"trial-b-{unique}")
    emit_other("tool_decision", 100, tool_name="Read", tool_use_id="toolu_01", decision="accept", source="config")
    emit_other("tool_result", 200, tool_name="Read", tool_use_id="toolu_01", success="true", duration_ms="5")
    other.send(server)

    assert _tools(server, trial=f"trial-a-{unique}")["toolu_01"]["decision"] is None
    assert _trace_tools(server, f"trial-a-{unique}")["toolu_01"]["decision"] is None
    assert _tools(server, trial=f"trial-b-{unique}")["toolu_01"]["decision"]["decision"] == "accept"


def test_claude_code_tool_span_shows_the_decision_logged_for_its_tool_use_id(server, unique):
    session = f"sess-{unique}"
    traces = Traces({"service.name": unique}, scope="com.anthropic.claude_code.tracing")
    traces.span(
        "claude_code.tool",
        {
            "session.id": session,
            "tool_name": "Edit",
            "tool_use_id": "toolu_09",
            "gen_ai.tool.call.id": "toolu_09",
            "gen_ai.operation.name": "execute_tool",
        },
        start_ms=1000,
        dur_ms=5000,
    )
    traces.send(server)
    logs = Logs({"service.name": unique}, scope=LOGGER)
    logs.event(
        {
            "session.id": session,
            "event.name": "tool_decision",
            "tool_name": "Edit",
            "tool_use_id": "toolu_09",
            "decision": "accept",
            "source": "user_temporary",
        },
        at_ms=4000,
        body="claude_code.tool_decision",
    )
    logs.send(server)

    edit = _tools(server, trial=session)["toolu_09"]
    assert edit["source"] == "otel_traces"
    assert edit["decision"] == {"decision": "accept", "source": "user_temporary", "how": "measured"}


def test_a_spans_only_claude_code_trial_takes_the_decision_from_the_tool_spans_blocked_on_user_child(server, unique):
    session = f"sess-{unique}"
    traces = Traces({"service.name": unique}, scope="com.anthropic.claude_code.tracing")
    asked = traces.span(
        "claude_code.tool",
        {"session.id": session, "tool_name": "Bash", "tool_use_id": "toolu_1"},
        start_ms=1000,
        dur_ms=5000,
    )
    traces.span(
        "claude_code.tool.blocked_on_user",
        {"session.id": session, "decision": "reject", "source": "user_reject", "duration_ms": "3000"},
        parent=asked,
        start_ms=1010,
        dur_ms=3000,
    )
    traces.span(
        "claude_code.tool",
        {"session.id": session, "tool_name": "Read", "tool_use_id": "toolu_2"},
        start_ms=7000,
        dur_ms=50,
    )  # no child: nothing was asked
    traces.send(server)

    rejected = {"decision": "reject", "source": "user_reject", "how": "measured"}
    for tools in (_tools(server, trial=session), _trace_tools(server, session)):
        assert tools["toolu_1"]["decision"] == rejected
        assert tools["toolu_2"]["decision"] is None


def test_codex_tool_result_shows_its_decision_as_codex_sent_it(server, unique):
    service, conversation = f"codex-cli-{unique}", f"conv-{unique}"
    logs = Logs({"service.name": service})
    common = {"conversation.id": conversation, "model": "gpt-5-codex"}
    logs.event(
        {
            **common,
            "event.name": "codex.tool_decision",
            "tool_name": "shell",
            "call_id": "call_1",
            "decision": "denied",
            "source": "user",
        },
        at_ms=100,
    )
    logs.event(
        {
            **common,
            "event.name": "codex.tool_result",
            "tool_name": "shell",
            "call_id": "call_1",
            "success": "false",
            "duration_ms": "3",
        },
        at_ms=300,
    )
    logs.event(
        {
            **common,
            "event.name": "codex.tool_result",
            "tool_name": "update_plan",
            "call_id": "call_2",
            "success": "true",
            "duration_ms": "1",
        },
        at_ms=400,
    )
    logs.send(server)

    items = httpx.get(f"{server.http_url}/api/spans", params={"service": service, "kind": "tool"}, timeout=60).json()[
        "items"
    ]
    assert [item["name"] for item in items] == ["codex.tool_result"] * 2  # the decision is no tool call of its own
    results = {item["tool"]["call_id"]: item for item in items}
    denied = {"decision": "denied", "source": "user", "how": "measured"}  # lowercased ReviewDecision, unmapped
    assert results["call_1"]["decision"] == denied and results["call_2"]["decision"] is None
    trace = _trace_tools(server, conversation, name="codex.tool_result")
    assert trace["call_1"]["decision"] == denied and trace["call_2"]["decision"] is None


def _event(call_id: str, trial: str | None, service: str = "svc") -> AgentEvent:
    return AgentEvent(
        event_id=call_id,
        trace_id="",
        span_id="",
        parent_span_id="",
        source="otel_logs",
        kind="tool",
        kind_rule="",
        name="tool_result",
        service=service,
        start_unix_nano=0,
        end_unix_nano=None,
        duration_ns=None,
        timing="unknown",
        job=None,
        trial=trial,
        attempt=None,
        task=None,
        agent=None,
        model=None,
        provider=None,
        request_id=None,
        agent_version=None,
        side_call=None,
        tokens={"input": None, "cached": None, "cache_write": None, "output": None, "reasoning": None},
        cost_usd=None,
        http_status=None,
        error_type=None,
        success=None,
        tool=Tool(name="Bash", category="execute", call_id=call_id, target_paths=[]),
        provenance={},
    )


def test_a_logged_decision_wins_over_a_child_spans_and_a_child_span_applies_to_its_own_tool_span_only():
    span_tool = _event("c1", "t1").model_copy(update={"source": "otel_traces", "trace_id": "tr", "span_id": "s1"})
    other_span = _event("c2", "t1").model_copy(update={"source": "otel_traces", "trace_id": "tr", "span_id": "s2"})
    logged = [("c1", None, "t1", "svc", "accept", "config")]
    child = [("tr", "s1", "reject", "user_reject")]
    assert fold([span_tool], logged, child)[0].decision.decision == "accept"
    folded = fold([span_tool, other_span], [], child)
    assert folded[0].decision.decision == "reject" and folded[1].decision is None


def test_without_trial_identity_a_decision_matches_within_its_service_and_the_last_one_wins():
    rows = [
        ("c1", None, None, "svc", "accept", "config"),
        ("c1", None, None, "svc", "reject", "user_reject"),
        ("c2", None, None, "other-svc", "accept", "config"),
        ("c3", None, "t1", "svc", "accept", "config"),
    ]
    folded = {
        e.tool.call_id: e.decision for e in fold([_event("c1", None), _event("c2", None), _event("c3", None)], rows)
    }
    assert folded["c1"].model_dump() == {"decision": "reject", "source": "user_reject", "how": "measured"}
    assert folded["c2"] is None and folded["c3"] is None
