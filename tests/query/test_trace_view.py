"""The trace page's fields on GET /api/trials/{trial}/trace: each bar's `left_pct` / `width_pct` on one
axis (the whole trace, or the `zoom` span), never clamped; `hide` (kinds) and `hide_span` (single spans)
leave spans out with their subtrees, from the query string, so a view is a link. The trace is sent as
OTLP spans and a Claude Code log event with the times chosen here, and the shares are checked against
those times."""

import uuid

import httpx
import pytest

from tests.agent.otlp_build import Logs, Traces


@pytest.fixture(scope="module")
def trace(server):
    """A session span 0-10 s; under it a model call 1-2 s with a tool call 1.5-1.7 s, and a tool call
    that starts 0.5 s before the session (-0.5 to 0 s); a Claude Code tool event with no duration."""
    unique = uuid.uuid4().hex[:12]
    job, trial = f"job-{unique}", f"trial-{unique}"
    resource = {"service.name": f"agent-{unique}", "harbor.job.name": job, "harbor.trial.name": trial}
    spans = Traces(resource)
    base = 60_000  # ms after T0
    session = spans.span("invoke_agent coder", {"gen_ai.operation.name": "invoke_agent"}, start_ms=base, dur_ms=10_000)
    call = spans.span(
        "chat gpt-5",
        {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-5"},
        parent=session,
        start_ms=base + 1_000,
        dur_ms=1_000,
    )
    spans.span(
        "execute_tool Read",
        {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "Read"},
        parent=call,
        start_ms=base + 1_500,
        dur_ms=200,
    )
    spans.span(
        "execute_tool Bash",
        {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "Bash"},
        parent=session,
        start_ms=base - 500,
        dur_ms=500,
    )
    spans.send(server)
    logs = Logs({**resource, "service.name": "claude-code"}, scope="com.anthropic.claude_code.events")
    logs.event(
        {"event.name": "tool_result", "tool_name": "Grep", "tool_use_id": f"toolu_{unique}", "success": "true"},
        at_ms=base + 5_000,
        body="claude_code.tool_result",
    )
    logs.send(server)
    return {"trial": trial, "session": session.hex(), "call": call.hex()}


def _get(server, trace, **params) -> httpx.Response:
    return httpx.get(f"{server.http_url}/api/trials/{trace['trial']}/trace", params=params, timeout=120)


def _by_name(rows: list[dict]) -> dict[str, dict]:
    return {r["name"]: r for r in rows}


def test_bars_share_one_axis_over_the_whole_trace(server, trace):
    body = _get(server, trace).json()
    axis, rows = body["axis"], _by_name(body["rows"])
    assert axis["end_unix_nano"] - axis["start_unix_nano"] == 10_500_000_000 and axis["zoom"] is None  # -0.5 s to 10 s
    assert rows["invoke_agent coder"]["left_pct"] == pytest.approx(100 * 0.5 / 10.5)
    assert rows["invoke_agent coder"]["width_pct"] == pytest.approx(100 * 10 / 10.5)
    assert rows["execute_tool Bash"]["left_pct"] == 0 and rows["execute_tool Read"]["depth"] == 2
    assert rows["execute_tool Read"]["parent_event_id"] == trace["call"]
    (event,) = [r for r in body["rows"] if r["name"] == "claude_code.tool_result"]
    assert event["width_pct"] is None  # no known end: no bar, not a zero-width one
    assert len(body["rows"]) == body["events"] and body["hidden"] == 0


def test_zoom_puts_the_axis_on_one_span_and_a_child_before_it_shows_negative(server, trace):
    body = _get(server, trace, zoom=trace["call"]).json()
    assert body["axis"]["zoom"] == trace["call"]
    assert [(r["name"], r["depth"]) for r in body["rows"]] == [("chat gpt-5", 0), ("execute_tool Read", 1)]
    assert _by_name(body["rows"])["execute_tool Read"]["left_pct"] == pytest.approx(50.0)
    session = _get(server, trace, zoom=trace["session"]).json()
    early = _by_name(session["rows"])["execute_tool Bash"]
    assert early["left_pct"] == pytest.approx(-5.0) and early["width_pct"] == pytest.approx(5.0)  # not clamped


def test_hide_and_hide_span_leave_subtrees_out(server, trace):
    tools = _get(server, trace, hide="tool").json()
    assert {r["kind"] for r in tools["rows"]} == {"session", "llm_request"} and tools["hidden"] == 3
    call = _get(server, trace, hide_span=trace["call"]).json()
    assert "execute_tool Read" not in _by_name(call["rows"]) and call["hidden"] == 2
    assert all(n["event"]["event_id"] != trace["call"] for n in call["roots"][0]["children"])


@pytest.mark.parametrize(
    "params, said",
    [
        (
            {"hide": "tool,bogus"},
            "hide: bogus is not a kind (kinds: llm_request, reasoning, output, tool, subagent, "
            "session, user_message, compaction, group)",
        ),
        ({"zoom": "feedfacefeedface"}, "zoom: no span 'feedfacefeedface' is shown in this trace"),
    ],
)
def test_a_view_that_cannot_be_drawn_is_a_400(server, trace, params, said):
    reply = _get(server, trace, **params)
    assert (reply.status_code, reply.json()["detail"]) == (400, said)


def test_zoom_on_an_event_without_an_end_is_a_400(server, trace):
    (event,) = [r for r in _get(server, trace).json()["rows"] if r["name"] == "claude_code.tool_result"]
    reply = _get(server, trace, zoom=event["event_id"])
    assert (reply.status_code, reply.json()["detail"]) == (400, f"zoom: span {event['event_id']!r} has no known end")


def test_the_command_leaves_out_what_the_route_does(server, trace, capsys):
    from harborlight.cli.main import main

    assert main(["trace", trace["trial"], "--hide", "tool", "--server", server.http_url]) == 0
    out = capsys.readouterr().out
    assert "3 left out (--hide, --hide-span)" in out and "chat gpt-5" in out
    assert "execute_tool" not in out and "claude_code.tool_result" not in out
