"""Derived child records: reasoning, output and user text that a span (or log event) carries become
rows of their own under it, with the carrier's identity and no tokens, cost or tool facts."""

import json

import httpx

from tests.agent.otlp_build import Logs, Traces, events

_COLUMNS = (
    "EventId, SpanId, ParentSpanId, TraceId, Kind, KindRule, Resolve, Name, JobName, TrialName, Model, "
    "Provider, InputTokens, OutputTokens, CostUsd, HttpStatus, Success, ToolName, TimingQuality, Provenance, "
    "SourceTable"
)


def _rows(server, service: str) -> list[dict]:
    return events(server, service, _COLUMNS, order="Timestamp, EventId")


def _messages(*parts: tuple[str, str]) -> str:
    return json.dumps(
        [{"role": "assistant", "finish_reason": "stop", "parts": [{"type": t, "content": c} for t, c in parts]}]
    )


def _chat(output_messages: str | None = None, **extra) -> dict:
    attrs = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "anthropic",
        "gen_ai.request.model": "claude-sonnet-4",
        "gen_ai.usage.input_tokens": 1000,
        "gen_ai.usage.output_tokens": 200,
        "llm.cost.total": 0.01,
        **extra,
    }
    if output_messages is not None:
        attrs["gen_ai.output.messages"] = output_messages
    return attrs


def test_genai_output_message_parts_become_reasoning_and_output_children(server, unique):
    traces = Traces({"service.name": unique, "harbor.job.name": f"job-{unique}", "harbor.trial.name": f"t-{unique}"})
    root = traces.span("invoke_agent coder", {"gen_ai.operation.name": "invoke_agent"}, dur_ms=100)
    chat_id = traces.span(
        "chat claude-sonnet-4",
        _chat(_messages(("reasoning", "Let me look."), ("tool_call", ""), ("text", "Done."))),
        parent=root,
        start_ms=5,
    )
    traces.send(server)
    rows = _rows(server, unique)
    by_kind = {r["Kind"]: r for r in rows if r["Name"] == "chat claude-sonnet-4"}
    assert len(by_kind) == 3
    chat, reasoning, output = by_kind["llm_request"], by_kind["reasoning"], by_kind["output"]
    span_id = chat_id.hex()
    assert chat["EventId"] == span_id and chat["InputTokens"] == 1000
    assert (reasoning["EventId"], output["EventId"]) == (f"{span_id}:reasoning:0", f"{span_id}:output:1")
    for row in (reasoning, output):
        assert (row["SpanId"], row["ParentSpanId"], row["TraceId"]) == (span_id, span_id, traces.trace_id.hex())
        assert (row["JobName"], row["TrialName"], row["Model"], row["Provider"]) == (
            f"job-{unique}",
            f"t-{unique}",
            "claude-sonnet-4",
            "anthropic",
        )
        assert (
            row["InputTokens"],
            row["OutputTokens"],
            row["CostUsd"],
            row["HttpStatus"],
            row["Success"],
            row["ToolName"],
        ) == (None, None, None, None, None, None)
        assert (row["KindRule"], row["Resolve"], row["TimingQuality"]) == (
            "genai:gen_ai.output.messages",
            "",
            "inferred",
        )
        assert row["Provenance"]["kind"] == "derived" and "input_tokens" not in row["Provenance"]
        assert row["Provenance"]["trial"] == "measured"

    tree = httpx.get(f"{server.http_url}/api/trials/t-{unique}/trace").json()
    assert tree["events"] == 4 and tree["orphans"] == 0
    (session,) = tree["roots"]
    (chat_node,) = session["children"]
    assert chat_node["kind"] == "llm_request"  # its derived children do not make it a group
    assert [(c["kind"], c["event"]["event_id"]) for c in chat_node["children"]] == [
        ("reasoning", f"{span_id}:reasoning:0"),
        ("output", f"{span_id}:output:1"),
    ]
    assert tree["kinds"] == {"session": 1, "llm_request": 1, "reasoning": 1, "output": 1}


def test_spans_without_carriers_and_malformed_messages_stay_one_row(server, unique):
    traces = Traces({"service.name": unique})
    traces.span("chat a", _chat())
    traces.span("chat b", _chat('[{"role": "assistant", "parts": [{"type": "text", "con'), start_ms=1)
    traces.span("chat c", _chat(_messages(("tool_call", "")), **{"gen_ai.output.messages.extra": "x"}), start_ms=2)
    # An agent span's output messages repeat its last model call's: not a carrier.
    traces.span(
        "invoke_agent x",
        {"gen_ai.operation.name": "invoke_agent", "gen_ai.output.messages": _messages(("text", "Done."))},
        start_ms=3,
    )
    traces.send(server)
    assert [(r["Name"], r["Kind"]) for r in _rows(server, unique)] == [
        ("chat a", "llm_request"),
        ("chat b", "llm_request"),
        ("chat c", "llm_request"),
        ("invoke_agent x", "session"),
    ]


def test_harbor_atif2otel_reasoning_output_and_first_user_message(server, unique):
    traces = Traces({"service.name": unique}, scope="harbor-atif2otel")
    oi = "openinference.span.kind"
    root = traces.span(
        "claude-code", {oi: "AGENT", "input.value": "Fix the bug", "output.value": "Fixed."}, dur_ms=60000
    )
    llm = traces.span(
        "claude-sonnet-4-5",
        {
            oi: "LLM",
            "llm.model_name": "claude-sonnet-4-5",
            "llm.token_count.prompt": 8000,
            "input.value": '[{"role": "user"}]',
            "metadata.reasoning_content": "The bug is in foo.",
            "output.value": "I will edit foo.",
        },
        parent=root,
        start_ms=10,
    )
    traces.span(
        "Edit",
        {oi: "TOOL", "tool.name": "Edit", "input.value": '{"file_path": "foo.py"}', "output.value": "ok"},
        parent=root,
        start_ms=11,
        dur_ms=0,
    )
    traces.send(server)
    rows = _rows(server, unique)
    kinds = sorted((r["Name"], r["Kind"], r["KindRule"]) for r in rows)
    assert kinds == [
        ("Edit", "tool", "openinference:openinference.span.kind=TOOL"),
        ("claude-code", "session", "openinference:openinference.span.kind=AGENT"),
        ("claude-code", "user_message", "atif2otel:input.value"),
        ("claude-sonnet-4-5", "llm_request", "openinference:openinference.span.kind=LLM"),
        ("claude-sonnet-4-5", "output", "atif2otel:output.value"),
        ("claude-sonnet-4-5", "reasoning", "atif2otel:metadata.reasoning_content"),
    ]
    ids = {r["EventId"] for r in rows}
    assert {f"{llm.hex()}:reasoning:0", f"{llm.hex()}:output:1", f"{root.hex()}:user_message:0"} <= ids
    prompt = next(r for r in rows if r["Kind"] == "user_message")
    assert prompt["ParentSpanId"] == root.hex() and prompt["Resolve"] == ""
    assert {r["TrialName"] for r in rows} == {traces.trace_id.hex()}


def test_vercel_ai_sdk_response_reasoning_and_text(server, unique):
    traces = Traces({"service.name": unique, "harbor.trial.name": f"t-{unique}"})
    outer = traces.span("ai.generateText", {"ai.model.id": "gpt-4o", "ai.response.text": "Hello"})
    call = traces.span(
        "ai.generateText.doGenerate",
        {
            "ai.model.id": "gpt-4o",
            "ai.model.provider": "openai.chat",
            "ai.usage.inputTokens": 12,
            "ai.response.reasoning": "Greet.",
            "ai.response.text": "Hello",
        },
        parent=outer,
    )
    traces.send(server)
    rows = _rows(server, unique)
    assert sorted((r["Name"], r["Kind"]) for r in rows) == [
        ("ai.generateText", "session"),
        ("ai.generateText.doGenerate", "llm_request"),
        ("ai.generateText.doGenerate", "output"),
        ("ai.generateText.doGenerate", "reasoning"),
    ]
    derived = [r for r in rows if r["Kind"] in ("reasoning", "output")]
    assert all(r["ParentSpanId"] == call.hex() and r["Model"] == "gpt-4o" for r in derived)


def test_claude_code_interaction_prompt_and_genai_log_event(server, unique):
    traces = Traces(
        {"service.name": unique, "harbor.trial.name": f"t-{unique}"}, scope="com.anthropic.claude_code.tracing"
    )
    turn = traces.span(
        "claude_code.interaction",
        {"gen_ai.operation.name": "invoke_agent", "user_prompt": "Add a test", "user_prompt_length": 10},
    )
    traces.span("claude_code.llm_request", {"gen_ai.operation.name": "chat", "model": "claude-opus-4"}, parent=turn)
    traces.send(server)
    # Another producer in the same trial (in the same service, its one model call and the span's
    # would be twins: harborlight/agent/twins.py).
    logs = Logs({"service.name": f"{unique}-sdk", "harbor.trial.name": f"t-{unique}"})
    logs.event(
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "gpt-4.1",
            "gen_ai.usage.input_tokens": 10,
            "gen_ai.output.messages": _messages(("text", "Hi")),
        },
        event_name="gen_ai.client.inference.operation.details",
        at_ms=50,
    )
    logs.send(server)
    rows = _rows(server, unique) + _rows(server, f"{unique}-sdk")
    prompt = next(r for r in rows if r["Kind"] == "user_message")
    assert (prompt["Name"], prompt["ParentSpanId"], prompt["KindRule"]) == (
        "claude_code.interaction",
        turn.hex(),
        "claude_code:user_prompt",
    )
    detail, output = (r for r in rows if r["SourceTable"] == "otel_logs")
    assert (detail["Kind"], output["Kind"]) == ("llm_request", "output")
    assert (output["EventId"], output["ParentSpanId"], output["InputTokens"]) == (
        f"{detail['EventId']}:output:0",
        detail["EventId"],
        None,
    )

    tree = httpx.get(f"{server.http_url}/api/trials/t-{unique}/trace").json()
    by_name = {n["event"]["name"]: n for n in tree["roots"]}
    assert [c["kind"] for c in by_name["claude_code.interaction"]["children"]] == ["user_message", "llm_request"]
    assert [c["kind"] for c in by_name["gen_ai.client.inference.operation.details"]["children"]] == ["output"]


def test_trial_totals_and_counts_are_unchanged_by_derived_rows(server, unique):
    job = f"job-{unique}"
    for trial, messages in (("plain", None), ("carried", _messages(("reasoning", "r"), ("text", "t")))):
        traces = Traces({"service.name": unique, "harbor.job.name": job, "harbor.trial.name": f"{unique}-{trial}"})
        for i in range(3):
            traces.span("chat m", _chat(messages, **{"gen_ai.usage.cache_read.input_tokens": 500}), start_ms=i)
        traces.span(
            "execute_tool Read",
            {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "Read", "gen_ai.tool.call.id": "c1"},
            start_ms=5,
        )
        traces.send(server)
    fields = ("n_input_tokens", "n_cache_tokens", "n_output_tokens", "cost_usd", "n_steps", "n_tool_calls")
    plain, carried = (
        httpx.get(f"{server.http_url}/api/trials/{unique}-{t}", params={"job": job}, timeout=120).json()
        for t in ("plain", "carried")
    )
    assert [plain[f] for f in fields] == [carried[f] for f in fields]
    assert plain["n_input_tokens"]["value"] == 3000 and plain["n_steps"]["value"] == 3
    totals = server.sql(
        """
        SELECT TrialName, sum(InputTokens), sum(CostUsd), countIf(Kind = 'llm_request'), countIf(Kind = 'tool'),
               countIf(Kind IN ('reasoning', 'output'))
        FROM agent_events WHERE JobName = {job:String} GROUP BY TrialName ORDER BY TrialName""",
        job=job,
    )
    assert [t[1:] for t in totals] == [(3000, 0.03, 3, 1, 6), (3000, 0.03, 3, 1, 0)]
