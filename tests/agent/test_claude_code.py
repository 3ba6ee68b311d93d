"""Claude Code, streamed as log events only and as spans only, yields the same model calls and tool
calls: tokens normalised (input includes the cache), cost, 429s, tool categories, tool_call_ids."""

import httpx

from tests.agent.otlp_build import Logs, Traces, events, of_kind

LOGGER = "com.anthropic.claude_code.events"


def _claude_logs(service: str, session: str) -> Logs:
    logs = Logs(
        {
            "service.name": service,
            "service.version": "2.1.332",
            "harbor.job.name": f"job-{service}",
            "harbor.trial.name": f"trial-{service}",
            "harbor.attempt": 2,
            "harbor.task.name": "fix-bug",
        },
        scope=LOGGER,
    )
    common = {"session.id": session, "user.id": "u1", "prompt.id": "p1"}

    def emit(name: str, at_ms: int, **attrs) -> None:
        logs.event({**common, "event.name": name, **attrs}, at_ms=at_ms, body=f"claude_code.{name}")

    emit("user_prompt", 0, prompt_length="42", prompt="<REDACTED>")
    emit(
        "api_error",
        900,
        model="claude-sonnet-4-5",
        error="rate_limit_error",
        status_code=429,
        duration_ms=800,
        attempt=1,
    )
    emit(
        "api_request",
        4000,
        model="claude-sonnet-4-5",
        input_tokens=12,
        output_tokens=340,
        cache_read_tokens=9000,
        cache_creation_tokens=1500,
        cost_usd=0.0421,
        duration_ms=3000,
        ttft_ms=700,
        request_id="req_1",
    )
    emit("tool_decision", 4100, tool_name="Read", tool_use_id="toolu_01", decision="accept", source="config")
    emit(
        "tool_result",
        4200,
        tool_name="Read",
        tool_use_id="toolu_01",
        success="true",
        duration_ms="35",
        tool_input='{"file_path": "/repo/src/app.py"}',
    )
    emit(
        "tool_result",
        5200,
        tool_name="mcp__github__search_issues",
        tool_use_id="toolu_02",
        success="false",
        duration_ms="120",
        error="timeout",
        tool_parameters='{"mcp_server_name": "github"}',
    )
    emit(
        "tool_result",
        6000,
        tool_name="Bash",
        tool_use_id="toolu_03",
        success="true",
        duration_ms="2000",
        tool_parameters='{"bash_command": "pytest", "full_command": "pytest -q"}',
    )
    emit(
        "compaction", 7000, trigger="auto", success="true", duration_ms="500", pre_tokens="150000", post_tokens="20000"
    )
    emit("assistant_response", 7500, response_length="120", response="<REDACTED>", model="claude-sonnet-4-5")
    emit(
        "subagent_completed",
        8000,
        agent_type="Explore",
        total_tokens="4000",
        duration_ms="900",
        model="claude-haiku-4-5",
    )
    return logs


def test_logs_only_trial_yields_model_calls_and_tool_calls(server, unique):
    _claude_logs(unique, f"sess-{unique}").send(server)
    rows = events(server, unique)

    assert sorted(r["Kind"] for r in rows) == sorted(
        [
            "user_message",
            "llm_request",
            "llm_request",
            "tool",
            "tool",
            "tool",
            "compaction",
            "output",
            "subagent",
        ]
    )  # tool_decision is metadata: it stays in otel_logs and is no agent event
    error, call = of_kind(rows, "llm_request")
    assert (error["HttpStatus"], error["Success"], error["InputTokens"]) == (429, False, None)
    # Claude Code events report input without the cache; harborlight adds it back.
    assert (call["InputTokens"], call["CachedTokens"], call["CacheWriteTokens"], call["OutputTokens"]) == (
        12 + 9000 + 1500,
        9000,
        1500,
        340,
    )
    assert call["CostUsd"] == 0.0421 and call["Model"] == "claude-sonnet-4-5"
    assert call["ReasoningTokens"] is None  # not reported: NULL, never 0
    assert call["Provenance"]["input_tokens"] == "derived" and call["Provenance"]["cost_usd"] == "measured"
    assert call["TimingQuality"] == "inferred"  # start = emit time - duration_ms

    read, mcp, bash = sorted(of_kind(rows, "tool"), key=lambda r: r["ToolCallId"])
    assert (read["ToolName"], read["ToolCategory"], read["ToolCallId"], read["Success"]) == (
        "Read",
        "read",
        "toolu_01",
        True,
    )
    assert read["TargetPaths"] == ["/repo/src/app.py"]
    assert (mcp["ToolCategory"], mcp["Success"], mcp["ToolCallId"]) == ("search", False, "toolu_02")
    assert (bash["ToolCategory"], bash["ToolCallId"]) == ("execute", "toolu_03")
    assert {(r["JobName"], r["TrialName"], r["Attempt"], r["TaskName"]) for r in rows} == {
        (f"job-{unique}", f"trial-{unique}", 2, "fix-bug")
    }


def test_spans_only_trial_yields_model_calls_and_tool_calls(server, unique):
    session = f"sess-{unique}"
    traces = Traces({"service.name": unique, "service.version": "2.1.332"}, scope="com.anthropic.claude_code.tracing")
    common = {"session.id": session, "gen_ai.conversation.id": session}
    turn = traces.span(
        "claude_code.interaction",
        {**common, "gen_ai.operation.name": "invoke_agent", "user_prompt": "<REDACTED>", "interaction.sequence": 1},
        dur_ms=9000,
    )
    traces.span(
        "claude_code.llm_request",
        {
            **common,
            "model": "claude-sonnet-4-5",
            "gen_ai.system": "anthropic",
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "claude-sonnet-4-5",
            "status_code": 429,
            "success": False,
            "error": "rate_limit_error",
            "attempt": 1,
        },
        parent=turn,
        start_ms=10,
        dur_ms=800,
        error="rate_limit_error",
    )
    traces.span(
        "claude_code.llm_request",
        {
            **common,
            "model": "claude-sonnet-4-5",
            "gen_ai.request.model": "claude-sonnet-4-5",
            "gen_ai.response.model": "claude-sonnet-4-5",
            "gen_ai.operation.name": "chat",
            "input_tokens": 12,
            "output_tokens": 340,
            "cache_read_tokens": 9000,
            "cache_creation_tokens": 1500,
            "gen_ai.usage.input_tokens": 10512,
            "gen_ai.usage.output_tokens": 340,
            "gen_ai.usage.cache_read.input_tokens": 9000,
            "gen_ai.usage.cache_write.input_tokens": 1500,
            "success": True,
            "status_code": 200,
        },
        parent=turn,
        start_ms=1000,
        dur_ms=3000,
    )
    tool = traces.span(
        "claude_code.tool",
        {
            **common,
            "tool_name": "Edit",
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "Edit",
            "tool_use_id": "toolu_09",
            "gen_ai.tool.call.id": "toolu_09",
            "file_path": "/repo/src/app.py",
        },
        parent=turn,
        start_ms=4100,
        dur_ms=50,
    )
    traces.span("claude_code.tool.execution", {**common, "success": True}, parent=tool, start_ms=4110, dur_ms=30)
    traces.send(server)
    rows = events(server, unique)

    by_name = {}
    for r in rows:
        by_name.setdefault(r["Name"], []).append(r)
    assert by_name["claude_code.interaction"][0]["Kind"] == "group"  # a turn, not a session
    limited, call = by_name["claude_code.llm_request"]
    assert (limited["Kind"], limited["HttpStatus"], limited["Success"]) == ("llm_request", 429, False)
    # The span's gen_ai.usage.input_tokens already includes the cache: the same 10,512 as from events.
    assert (call["InputTokens"], call["CachedTokens"], call["CacheWriteTokens"], call["OutputTokens"]) == (
        10512,
        9000,
        1500,
        340,
    )
    assert call["CostUsd"] is None  # Claude Code puts no cost on spans
    assert call["TimingQuality"] == "measured"
    edit = by_name["claude_code.tool"][0]
    assert (edit["Kind"], edit["ToolCategory"], edit["ToolCallId"], edit["TargetPaths"]) == (
        "tool",
        "edit",
        "toolu_09",
        ["/repo/src/app.py"],
    )
    assert {r["TrialName"] for r in rows} == {session}  # no harness: the session id is the trial
    assert call["Provenance"]["trial"] == "inferred"


def test_concurrent_trials_tool_calls_at_the_same_time_keep_their_own_arguments(server, unique):
    """Claude Code's tool_result events carry no trace: two trials' calls logged in the same millisecond
    by the same service are told apart, so one trial's exact repeat is its own (behaviour's redundant reads)."""
    patterns = {"repeats": ("def main", "def main"), "differs": ("class A", "class B")}
    for trial, (first, second) in patterns.items():
        logs = Logs(
            {
                "service.name": "claude-code",
                "harbor.job.name": f"job-{trial}-{unique}",
                "harbor.trial.name": f"{trial}-{unique}",
            },
            scope=LOGGER,
        )
        for at_ms, pattern in ((1000, first), (2000, second)):
            logs.event(
                {
                    "session.id": f"s-{trial}",
                    "event.name": "tool_result",
                    "tool_name": "Grep",
                    "tool_use_id": f"toolu_{trial}_{at_ms}",
                    "success": "true",
                    "tool_parameters": f'{{"pattern": "{pattern}"}}',
                },
                at_ms=at_ms,
                body="claude_code.tool_result",
            )
        logs.send(server)
    redundant = {
        trial: httpx.get(f"{server.http_url}/api/trials/{trial}-{unique}/behavior", timeout=60).json()[
            "n_redundant_reads"
        ]["value"]
        for trial in patterns
    }
    assert redundant == {"repeats": 1, "differs": 0}
