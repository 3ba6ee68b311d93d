"""Codex, Gemini CLI and Copilot telemetry, shaped as the reference describes, become the same kinds
and facts as Claude Code's."""

from tests.agent.otlp_build import Logs, Traces, events, of_kind


def test_codex_log_events(server, unique):
    logs = Logs({"service.name": f"codex-cli-{unique}", "harbor.job.name": f"job-{unique}"})
    common = {"conversation.id": f"conv-{unique}", "app.version": "0.171.0", "model": "gpt-5-codex", "slug": "gpt-5"}
    logs.event({**common, "event.name": "codex.conversation_starts", "provider_name": "openai"}, at_ms=0)
    logs.event({**common, "event.name": "codex.user_prompt", "prompt_length": "30", "prompt": "[REDACTED]"}, at_ms=5)
    logs.event(
        {
            **common,
            "event.name": "codex.api_request",
            "http.response.status_code": "429",
            "duration_ms": "210",
            "attempt": "1",
            "error.message": "rate limited",
        },
        at_ms=300,
    )
    logs.event(
        {**common, "event.name": "codex.api_request", "http.response.status_code": "200", "duration_ms": "900"},
        at_ms=1300,
    )  # a successful attempt: its usage comes with the SSE event
    logs.event(
        {
            **common,
            "event.name": "codex.sse_event",
            "event.kind": "response.completed",
            "input_token_count": "5000",
            "output_token_count": "700",
            "cached_token_count": "4096",
            "reasoning_token_count": "512",
            "duration_ms": "1000",
        },
        at_ms=1400,
    )
    # The decision and the sandbox's outcome annotate the call: they are no tool calls of their own.
    logs.event(
        {
            **common,
            "event.name": "codex.tool_decision",
            "tool_name": "apply_patch",
            "call_id": "call_7",
            "decision": "approved",
            "source": "config",
        },
        at_ms=1450,
    )
    logs.event(
        {
            **common,
            "event.name": "codex.sandbox_outcome",
            "tool_name": "apply_patch",
            "call_id": "call_7",
            "outcome": "success",
        },
        at_ms=1490,
    )
    logs.event(
        {
            **common,
            "event.name": "codex.tool_result",
            "tool_name": "apply_patch",
            "call_id": "call_7",
            "success": "true",
            "duration_ms": "40",
            "arguments": '{"input":"*** Begin Patch\\n*** Update File: src/lib.rs\\n@@\\n*** End Patch"}',
        },
        at_ms=1500,
    )
    logs.event(
        {
            **common,
            "event.name": "codex.tool_result",
            "tool_name": "update_plan",
            "call_id": "call_8",
            "success": "true",
            "duration_ms": "1",
        },
        at_ms=1600,
    )
    logs.send(server)
    rows = events(server, f"codex-cli-{unique}")

    assert sorted(r["Kind"] for r in rows) == ["llm_request", "llm_request", "session", "tool", "tool", "user_message"]
    limited, completed = of_kind(rows, "llm_request")
    assert (limited["HttpStatus"], limited["Success"]) == (429, False)
    assert (
        completed["InputTokens"],
        completed["CachedTokens"],
        completed["OutputTokens"],
        completed["ReasoningTokens"],
        completed["Model"],
    ) == (5000, 4096, 700, 512, "gpt-5-codex")
    patch, plan = of_kind(rows, "tool")
    assert (patch["ToolCategory"], patch["ToolCallId"], patch["TargetPaths"]) == ("edit", "call_7", ["src/lib.rs"])
    assert plan["ToolCategory"] == "plan"
    assert {r["TrialName"] for r in rows} == {f"conv-{unique}"}


def test_gemini_cli_spans_and_events(server, unique):
    service = f"gemini-cli-{unique}"
    resource = {"service.name": service, "harbor.trial.name": f"trial-{unique}"}
    traces = Traces(resource, scope="gemini-cli")
    common = {"gen_ai.agent.name": "gemini-cli", "gen_ai.conversation.id": "s1"}
    traces.span(
        "llm_call",
        {
            **common,
            "gen_ai.operation.name": "llm_call",
            "gen_ai.request.model": "gemini-2.5-pro",
            "gen_ai.usage.input_tokens": 800,
            "gen_ai.usage.output_tokens": 90,
        },
        start_ms=0,
    )
    traces.span(
        "tool_call",
        {
            **common,
            "gen_ai.operation.name": "tool_call",
            "gen_ai.tool.name": "grep_search",
            "gen_ai.tool.call_id": "gcall-1",
        },
        start_ms=20,
    )
    traces.span("agent_call", {**common, "gen_ai.operation.name": "agent_call"}, start_ms=40)
    traces.send(server)
    logs = Logs(resource, scope="gemini-cli")
    base = {"session.id": "s1", "installation.id": "i1"}
    logs.event(
        {
            **base,
            "event.name": "gemini_cli.api_response",
            "model": "gemini-2.5-pro",
            "duration_ms": 1200,
            "input_token_count": 1000,
            "output_token_count": 100,
            "thoughts_token_count": 300,
            "cached_content_token_count": 600,
            "status_code": 200,
        },
        at_ms=2000,
        body="API response",
    )
    logs.event(
        {
            **base,
            "event.name": "gen_ai.client.inference.operation.details",
            "gen_ai.operation.name": "generate_content",
            "gen_ai.request.model": "gemini-2.5-pro",
        },
        at_ms=2000,
    )  # Gemini's second record of the same call: not counted twice
    logs.event(
        {
            **base,
            "event.name": "gemini_cli.api_error",
            "model": "gemini-2.5-pro",
            "http.status_code": 429,
            "error.type": "RESOURCE_EXHAUSTED",
            "duration_ms": 50,
        },
        at_ms=2100,
    )
    logs.event(
        {
            **base,
            "event.name": "gemini_cli.tool_call",
            "function_name": "read_file",
            "success": True,
            "function_args": '{"file_path": "README.md"}',
            "duration_ms": 5,
        },
        at_ms=2200,
    )
    logs.event(
        {**base, "event.name": "gemini_cli.chat_compression", "tokens_before": 90000, "tokens_after": 9000}, at_ms=2300
    )
    logs.send(server)
    rows = events(server, service)

    kinds = {(r["Name"], r["SourceTable"]): r for r in rows}
    assert kinds[("llm_call", "otel_traces")]["Kind"] == "llm_request"
    tool = kinds[("tool_call", "otel_traces")]
    assert (tool["Kind"], tool["ToolCategory"], tool["ToolCallId"]) == ("tool", "search", "gcall-1")
    assert kinds[("agent_call", "otel_traces")]["Kind"] == "subagent"
    response = kinds[("gemini_cli.api_response", "otel_logs")]
    # Gemini's output count leaves out thoughts; harborlight's output includes reasoning.
    assert (
        response["InputTokens"],
        response["CachedTokens"],
        response["OutputTokens"],
        response["ReasoningTokens"],
    ) == (1000, 600, 400, 300)
    assert ("gen_ai.client.inference.operation.details", "otel_logs") not in kinds
    assert kinds[("gemini_cli.api_error", "otel_logs")]["HttpStatus"] == 429
    read = kinds[("gemini_cli.tool_call", "otel_logs")]
    assert (read["Kind"], read["ToolCategory"], read["TargetPaths"]) == ("tool", "read", ["README.md"])
    assert kinds[("gemini_cli.chat_compression", "otel_logs")]["Kind"] == "compaction"
    assert {r["TrialName"] for r in rows} == {f"trial-{unique}"}


def test_copilot_subagent_under_execute_tool(server, unique):
    traces = Traces({"service.name": unique, "harbor.trial.name": f"trial-{unique}"})
    root = traces.span(
        "invoke_agent copilot", {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "copilot"}, dur_ms=1000
    )
    traces.span(
        "chat gpt-4.1",
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "gpt-4.1",
            "gen_ai.usage.input_tokens": 300,
            "gen_ai.usage.output_tokens": 20,
            "gen_ai.usage.cache_write.input_tokens": 100,
        },
        parent=root,
        start_ms=1,
    )
    tool = traces.span(
        "execute_tool runSubagent",
        {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "runSubagent", "gen_ai.tool.call.id": "c1"},
        parent=root,
        start_ms=20,
    )
    sub = traces.span("invoke_agent explorer", {"gen_ai.operation.name": "invoke_agent"}, parent=tool, start_ms=21)
    traces.span(
        "execute_tool mcp_github_list_issues",
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "github__list_issues",
            "gen_ai.tool.call.id": "c2",
        },
        parent=sub,
        start_ms=22,
    )
    traces.send(server)
    rows = {r["Name"]: r for r in events(server, unique)}

    assert rows["invoke_agent copilot"]["Kind"] == "session"
    # Stored, an agent below the top reads as the run's own agent (a group); a trace read, which sees the tool
    # above it, makes it a subagent (harborlight/read/statements/trace_tree.py).
    assert rows["invoke_agent explorer"]["Kind"] == "group"
    assert rows["chat gpt-4.1"]["CacheWriteTokens"] == 100
    assert (rows["execute_tool runSubagent"]["ToolCategory"], rows["execute_tool runSubagent"]["ToolCallId"]) == (
        "other",
        "c1",
    )
    assert rows["execute_tool mcp_github_list_issues"]["ToolCategory"] == "read"  # MCP server__tool, keyword
