"""Library instrumentations (OpenHands/Laminar, OpenLLMetry, OpenInference incl. Harbor's ATIF
converter, Vercel AI SDK, LangSmith, plain GenAI semconv) land as the same kinds and facts."""

import httpx

from tests.agent.otlp_build import Logs, Traces, events, of_kind


def _by_name(server, service: str) -> dict[str, dict]:
    return {r["Name"]: r for r in events(server, service)}


def test_openhands_laminar(server, unique):
    traces = Traces({"service.name": unique})
    # Laminar stamps association properties on every span of the trace.
    props = {
        "lmnr.association.properties.session_id": f"oh-{unique}",
        "lmnr.association.properties.metadata.harbor.trial_name": f"t-{unique}",
    }
    root = traces.span(f"trial-{unique}", {**props, "lmnr.span.type": "EVALUATION"})
    agent = traces.span("agent", {**props, "lmnr.span.type": "EXECUTOR", "harbor.agent.cost_usd": 0.5}, parent=root)
    traces.span(
        "litellm.completion",
        {
            **props,
            "lmnr.span.type": "LLM",
            "gen_ai.request.model": "claude-opus-4",
            "gen_ai.usage.input_tokens": 2000,
            "gen_ai.usage.output_tokens": 50,
            "gen_ai.usage.cache_read_input_tokens": 1500,
            "gen_ai.usage.cost": 0.03,
        },
        parent=agent,
    )
    traces.span("terminal", {**props, "lmnr.span.type": "TOOL", "lmnr.span.input": '{"command": "ls"}'}, parent=agent)
    traces.send(server)
    rows = _by_name(server, unique)
    assert rows[f"trial-{unique}"]["Kind"] == "session" and rows["agent"]["Kind"] == "group"
    llm = rows["litellm.completion"]
    assert (llm["Kind"], llm["CachedTokens"], llm["CostUsd"]) == ("llm_request", 1500, 0.03)
    terminal = rows["terminal"]
    assert (terminal["Kind"], terminal["ToolName"], terminal["ToolCategory"], terminal["ToolCallId"]) == (
        "tool",
        "terminal",
        "execute",
        None,
    )  # Laminar drops the call id
    assert {r["TrialName"] for r in rows.values()} == {f"t-{unique}"}


def test_openllmetry(server, unique):
    traces = Traces({"service.name": unique, "harbor.trial.name": f"t-{unique}"})
    wf = traces.span("solve.workflow", {"traceloop.span.kind": "workflow", "traceloop.workflow.name": "solve"})
    traces.span(
        "anthropic.chat",
        {
            "llm.request.type": "chat",
            "gen_ai.system": "Anthropic",
            "gen_ai.request.model": "claude-3-7-sonnet",
            "gen_ai.usage.prompt_tokens": 900,
            "gen_ai.usage.completion_tokens": 80,
            "gen_ai.usage.cache_creation_input_tokens": 64,
            "gen_ai.usage.reasoning_tokens": 10,
        },
        parent=wf,
    )
    traces.span("grep.tool", {"traceloop.span.kind": "tool", "traceloop.entity.name": "grep"}, parent=wf)
    traces.send(server)
    rows = _by_name(server, unique)
    assert rows["solve.workflow"]["Kind"] == "session"
    chat = rows["anthropic.chat"]
    assert (
        chat["Kind"],
        chat["InputTokens"],
        chat["OutputTokens"],
        chat["CacheWriteTokens"],
        chat["ReasoningTokens"],
    ) == ("llm_request", 900, 80, 64, 10)
    assert rows["grep.tool"]["Kind"] == "tool"


def test_harbor_atif2otel_openinference(server, unique):
    """Harbor's ATIF-to-OTel converter: OpenInference keys only, turn AGENT spans, tool spans beside
    the LLM span, a sub-agent under the tool that spawned it, a context-management CHAIN."""
    traces = Traces({"service.name": unique, "telemetry.sdk.name": "harbor-atif2otel"}, scope="harbor-atif2otel")
    oi = "openinference.span.kind"
    root = traces.span(
        "claude-code",
        {
            oi: "AGENT",
            "agent.name": "claude-code",
            "session.id": "s-1",
            "llm.model_name": "claude-sonnet-4-5",
            "llm.token_count.prompt": 50000,
            "llm.cost.total": 1.25,
        },
        dur_ms=60000,
    )
    turn = traces.span("turn-1", {oi: "AGENT"}, parent=root, dur_ms=30000)
    traces.span(
        "claude-sonnet-4-5",
        {
            oi: "LLM",
            "llm.model_name": "claude-sonnet-4-5",
            "llm.token_count.prompt": 8000,
            "llm.token_count.completion": 300,
            "llm.token_count.prompt_details.cache_read": 7000,
            "llm.cost.total": 0.02,
        },
        parent=turn,
        start_ms=10,
        dur_ms=5000,
    )
    task = traces.span(
        "Task",
        {oi: "TOOL", "tool.name": "Task", "input.value": '{"prompt": "explore"}'},
        parent=turn,
        start_ms=11,
        dur_ms=0,
    )
    sub = traces.span("explore-agent", {oi: "AGENT", "agent.name": "explore-agent"}, parent=task, start_ms=12)
    traces.span(
        "Glob",
        {oi: "TOOL", "tool.name": "Glob", "input.value": '{"path": "/repo", "pattern": "*.py"}'},
        parent=sub,
        start_ms=13,
        dur_ms=0,
    )
    traces.span(
        "context-management",
        {oi: "CHAIN", "context_management.action": "{'type': 'compact'}"},
        parent=turn,
        start_ms=20000,
        dur_ms=0,
    )
    traces.send(server)
    rows = _by_name(server, unique)
    assert rows["claude-code"]["Kind"] == "session" and rows["turn-1"]["Kind"] == "group"
    llm = rows["claude-sonnet-4-5"]
    assert (llm["Kind"], llm["InputTokens"], llm["CachedTokens"], llm["CostUsd"]) == ("llm_request", 8000, 7000, 0.02)
    assert llm["TimingQuality"] == "inferred"  # reconstructed from step timestamps
    assert (rows["Task"]["ToolCategory"], rows["Glob"]["ToolCategory"], rows["Glob"]["TargetPaths"]) == (
        "other",
        "search",
        ["/repo"],
    )
    assert rows["explore-agent"]["Kind"] == "group"  # provisional: the trace tree sees the Task tool above it
    assert rows["context-management"]["Kind"] == "compaction"
    # Stored, a span names its trial from its own attributes: the children have none but their trace.
    assert {n: r["TrialName"] for n, r in rows.items() if r["TrialName"] != traces.trace_id.hex()} == {
        "claude-code": "s-1"
    }

    tree = httpx.get(f"{server.http_url}/api/trials/s-1/trace").json()  # read, they are the root's trial
    assert tree["orphans"] == 0 and tree["events"] == 7
    (session,) = tree["roots"]
    turn_node = session["children"][0]
    task_node = next(c for c in turn_node["children"] if c["event"]["name"] == "Task")
    assert task_node["children"][0]["kind"] == "subagent"
    assert tree["kinds"]["compaction"] == 1 and tree["kinds"]["session"] == 1


def test_vercel_ai_sdk(server, unique):
    traces = Traces({"service.name": unique, "harbor.trial.name": f"t-{unique}"})
    outer = traces.span(
        "ai.generateText",
        {
            "operation.name": "ai.generateText",
            "ai.model.id": "gpt-4o",
            "ai.usage.inputTokens": 1200,
            "ai.usage.outputTokens": 100,
        },
    )
    traces.span(
        "ai.generateText.doGenerate",
        {
            "ai.model.id": "gpt-4o",
            "ai.model.provider": "openai.chat",
            "ai.usage.inputTokens": 1200,
            "ai.usage.outputTokens": 100,
            "ai.usage.cachedInputTokens": 1024,
            "ai.usage.reasoningTokens": 64,
        },
        parent=outer,
    )
    traces.span(
        "ai.toolCall",
        {"ai.toolCall.name": "readFile", "ai.toolCall.id": "call_v1", "ai.toolCall.args": '{"path": "docs/a.md"}'},
        parent=outer,
    )
    traces.send(server)
    rows = _by_name(server, unique)
    assert rows["ai.generateText"]["Kind"] == "session"
    gen = rows["ai.generateText.doGenerate"]
    assert (gen["Kind"], gen["Model"], gen["CachedTokens"], gen["ReasoningTokens"]) == (
        "llm_request",
        "gpt-4o",
        1024,
        64,
    )
    call = rows["ai.toolCall"]
    assert (call["Kind"], call["ToolCallId"], call["ToolCategory"], call["TargetPaths"]) == (
        "tool",
        "call_v1",
        "other",
        ["docs/a.md"],
    )


def test_langsmith_prompt_run_is_not_a_model_call(server, unique):
    traces = Traces({"service.name": unique})
    chain = traces.span(
        "AgentExecutor",
        {"langsmith.span.kind": "chain", "gen_ai.operation.name": "chain", "langsmith.trace.session_id": "project-1"},
    )
    traces.span("ChatPromptTemplate", {"langsmith.span.kind": "prompt", "gen_ai.operation.name": "chat"}, parent=chain)
    traces.span(
        "ChatOpenAI",
        {
            "langsmith.span.kind": "llm",
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "gpt-4o-mini",
            "gen_ai.usage.input_tokens": 50,
            "gen_ai.usage.output_tokens": 5,
        },
        parent=chain,
    )
    traces.span("search", {"langsmith.span.kind": "tool", "gen_ai.operation.name": "execute_tool"}, parent=chain)
    traces.send(server)
    rows = _by_name(server, unique)
    assert [rows[n]["Kind"] for n in ("AgentExecutor", "ChatPromptTemplate", "ChatOpenAI", "search")] == [
        "group",
        "group",
        "llm_request",
        "tool",
    ]
    assert rows["ChatOpenAI"]["TrialName"] == traces.trace_id.hex()  # a LangSmith project is no session


def test_plain_genai_semconv_spans_and_log_event(server, unique):
    resource = {"service.name": unique, "harbor.job.name": f"job-{unique}"}
    traces = Traces(resource)
    root = traces.span(
        "invoke_agent planner", {"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": f"c-{unique}"}
    )
    traces.span(
        "chat claude-sonnet-4",
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": "anthropic",
            "gen_ai.request.model": "claude-sonnet-4",
            "error.type": "429",
        },
        parent=root,
        error="rate limited",
    )
    traces.span(
        "execute_tool write_file",
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.call.id": "t1",
            "gen_ai.tool.call.arguments": '{"file_path": "out.txt"}',
        },
        parent=root,
    )
    traces.send(server)
    logs = Logs(resource)
    logs.event(
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "gpt-4.1",
            "gen_ai.usage.input_tokens": 10,
            "gen_ai.usage.output_tokens": 2,
        },
        event_name="gen_ai.client.inference.operation.details",
        at_ms=50,
    )
    logs.send(server)
    rows = _by_name(server, unique)
    chat = rows["chat claude-sonnet-4"]
    assert (chat["Kind"], chat["HttpStatus"], chat["Success"]) == ("llm_request", 429, False)
    assert chat["Provenance"]["http_status"] == "derived"
    tool = rows["execute_tool write_file"]
    assert (tool["ToolName"], tool["ToolCategory"], tool["TargetPaths"]) == ("write_file", "edit", ["out.txt"])
    assert tool["Success"] is True and tool["Provenance"]["success"] == "inferred"  # ended without error
    detail = rows["gen_ai.client.inference.operation.details"]
    assert (detail["Kind"], detail["InputTokens"], detail["TimingQuality"]) == ("llm_request", 10, "unknown")


def test_a_call_refused_for_its_rate_in_words_only_is_a_429(server, unique):
    """The AI SDK's APICallError: status ERROR with the provider's message, no HTTP status attribute."""
    traces = Traces({"service.name": unique})
    model = {"ai.model.id": "gpt-4.1", "ai.model.provider": "openai.chat"}
    traces.span("ai.streamText.doStream", model, start_ms=0, error="Rate limit reached for requests")
    traces.span("ai.generateText.doGenerate", model, start_ms=10, error="429 Too Many Requests")
    traces.span("ai.generateText.doGenerate", model, start_ms=20, error="fetch failed: connection reset")
    traces.send(server)
    rows = of_kind(events(server, unique), "llm_request")
    assert [(r["HttpStatus"], r["Provenance"]["http_status"], r["Success"]) for r in rows] == [
        (429, "inferred", False),
        (429, "derived", False),  # the status code its message begins with
        (None, "", False),
    ]
